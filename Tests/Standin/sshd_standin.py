#!/usr/bin/env python3
"""A real OpenSSH server (Debian's sshd) on a loopback port of its own, whose
every session is the stand-in's SSH front (ssh_front.py): gitbay over SSH.

    python3 Tests/Standin/sshd_standin.py

It makes a directory for the run with a new host key, an sshd_config and an
empty authorized_keys, starts `sshd -D -e` on 127.0.0.1 and a free port, and
prints one line once sshd listens:

    {"port": 40123, "dir": "/tmp/...", "host_key": "ssh-ed25519 AAAA...",
     "authorized_keys": "/tmp/.../authorized_keys", "user": "root"}

Clients log in as `user`, the user running it (sshd running as root may log in
anyone; as anyone else only that user). A key is let in by a line appended to
`authorized_keys` (sshd reads it at every login), which says the gitbay account,
the key's scope and the stand-in that answers:

    environment="GITBAY_USER=cmc",environment="GITBAY_KEY_SCOPE=full",environment="GITBAY_STANDIN=http://127.0.0.1:41234",restrict ssh-ed25519 AAAA...

sshd's log is `dir/sshd.log`. SIGTERM, SIGINT or the parent going away stop
sshd and remove the directory.
"""

import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading

from standin_server import stop_when_orphaned

SSHD = "/usr/sbin/sshd"
HERE = os.path.dirname(os.path.abspath(__file__))
# sshd as root insists on its privilege separation directory, which the service's unit makes.
PRIVSEP_DIRECTORY = "/run/sshd"
PORT_ATTEMPTS = 10


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def write_config(directory, user):
    config = os.path.join(directory, "sshd_config")
    front = f"{sys.executable} -S {os.path.join(HERE, 'ssh_front.py')}"
    with open(config, "w") as out:
        out.write(f"""\
HostKey {directory}/host_ed25519
PidFile {directory}/sshd.pid
AuthorizedKeysFile {directory}/authorized_keys
# The run's directory is under /tmp, which StrictModes would refuse.
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin prohibit-password
AllowUsers {user}
PermitUserEnvironment GITBAY_*
ForceCommand {front}
DisableForwarding yes
PermitTTY no
PrintMotd no
MaxStartups 64
LogLevel VERBOSE
""")
    return config


def start_sshd(config, log):
    """sshd on a free port; returns (process, port). A port taken in between is tried again."""
    for _ in range(PORT_ATTEMPTS):
        port = free_port()
        sshd = subprocess.Popen([SSHD, "-D", "-e", "-f", config, "-o", f"ListenAddress=127.0.0.1:{port}"],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        lines = []
        for line in sshd.stderr:
            lines.append(line)
            log.write(line)
            log.flush()
            if line.startswith("Server listening on"):
                threading.Thread(target=copy_rest, args=(sshd.stderr, log), daemon=True).start()
                return sshd, port
        sshd.wait()
        if not any("Address already in use" in line for line in lines):
            raise RuntimeError("sshd did not start: " + "".join(lines))
    raise RuntimeError(f"no free port for sshd in {PORT_ATTEMPTS} attempts")


def copy_rest(stream, log):
    for line in stream:
        log.write(line)
        log.flush()


def main():
    user = pwd.getpwuid(os.getuid()).pw_name
    if os.geteuid() == 0 and not os.path.isdir(PRIVSEP_DIRECTORY):
        os.makedirs(PRIVSEP_DIRECTORY, mode=0o755, exist_ok=True)
    directory = tempfile.mkdtemp(prefix="gbnotify-sshd-")
    try:
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "gbnotify-test-host",
                        "-f", os.path.join(directory, "host_ed25519")], check=True)
        authorized = os.path.join(directory, "authorized_keys")
        open(authorized, "w").close()
        config = write_config(directory, user)
        with open(os.path.join(directory, "sshd.log"), "w") as log:
            sshd, port = start_sshd(config, log)
            stop = threading.Event()
            signal.signal(signal.SIGTERM, lambda *_: stop.set())
            signal.signal(signal.SIGINT, lambda *_: stop.set())
            threading.Thread(target=stop_when_orphaned, args=(stop,), daemon=True).start()
            threading.Thread(target=lambda: (sshd.wait(), stop.set()), daemon=True).start()
            with open(os.path.join(directory, "host_ed25519.pub")) as public:
                host_key = " ".join(public.read().split()[:2])
            print(json.dumps({"port": port, "dir": directory, "host_key": host_key,
                              "authorized_keys": authorized, "user": user}), flush=True)
            stop.wait()
            sshd.terminate()
            try:
                sshd.wait(10)
            except subprocess.TimeoutExpired:
                sshd.kill()
                sshd.wait()
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
