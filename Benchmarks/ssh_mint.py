"""`gbnotifyctl account add --ssh` against a real OpenSSH server on loopback, beside the same
command with the token handed over on standard input: issue 29's row for the SSH minting, each
figure next to the one without the part. Imported by bench.py; stdlib only.

    import ssh_mint
    result = ssh_mint.measure(bin_dir, standin, ca, runs)   # standin: bench.Standin, ca: bench.RunCA
    ssh_mint.summary(result)                                 # the medians

What runs:
- the tests' own sshd (Tests/Standin/sshd_standin.py, unchanged: Debian's sshd on a free loopback
  port, a host key made for the run, `ForceCommand` the stand-in's SSH front ssh_front.py), with
  one client key made for the run let in through its `authorized_keys` line as the run's user of
  the stand-in, as Tests/TestSupport/OpenSSHServer.swift does;
- the front posts each command to the stand-in's `POST /_standin/ssh` over plain HTTP
  (http.client, as the tests' stand-in is plain HTTP); the benchmark's stand-in is behind TLS, so
  the front's `GITBAY_STANDIN` is a bridge in this process (`FrontBridge`) that hands the body on
  to the run's stand-in over HTTPS, on a kept connection. Tokens minted over SSH are so in the
  run's own token table and poll over HTTPS like the others. The bridge's CPU is this process's
  own, so it is in neither figure;
- the client side as the tests have it (SSHClientHome): a home with `.ssh/config` offering that
  key alone (`IdentitiesOnly yes`) and `.ssh/known_hosts` trusting the server's host key, made
  the passwd entry's home by nss_wrapper (LD_PRELOAD=libnss_wrapper.so), since ssh reads
  `~/.ssh` from there and not from $HOME. No ssh agent (SSH_AUTH_SOCK is dropped). Both figures
  run with that same environment, so nss_wrapper is on both sides;
- gbnotifyctl (the release build in `bin_dir`) with a config and state directory of its own,
  trusting the run's CA through SSL_CERT_DIR (`ca.trust_directory`) as the daemons do, and the
  session's keyring (scripts/desktop-session's gnome-keyring), where `add` stores the token.

How each figure is taken, for each of `runs` rounds (after `warmup` unmeasured rounds):
- `ssh`: `gbnotifyctl account add URL --ssh USER@127.0.0.1:PORT` for a user of the stand-in made
  for the round (its own rate-limit buckets, so no round waits on the one before): ssh's
  connection and key exchange, `token create` through sshd and the front, then `whoami` with the
  new token, the keyring item, `device add` and the reload call, as for a user;
- `stdin`: the figure without the part: `gbnotifyctl account add URL` for another fresh user, with
  a token the stand-in minted for it (control API) written to its standard input: the same
  `whoami`, keyring item, `device add` and reload, without ssh. A token is never on a command line;
- wall: CLOCK_MONOTONIC (time.monotonic) around the command, fork and exec of it included;
  CPU: getrusage(RUSAGE_CHILDREN) user+sys before and after, so gbnotifyctl and everything it
  waited for, ssh (the client's key exchange and signature) included;
- sshd: for the `ssh` runs, the server side's CPU: utime+stime+cutime+cstime of the sshd
  listener (/proc/PID/stat), once its per-connection processes are gone and reaped: sshd's
  connection process (re-executed), its privilege-separated child, the session and the front
  (a `python3 -S` start-up; a real gitbay's front is its own program). Not the stand-in's CPU;
- the two are taken in turn, which first alternating by round; each account is removed again
  afterwards (`account remove`, unmeasured: deregisters, revokes the minted token over SSH).
"""

import grp
import http.client
import http.server
import json
import os
import pwd
import resource
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
import urllib.parse

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SSHD_STANDIN = os.path.join(ROOT, "Tests", "Standin", "sshd_standin.py")
PYTHON = "/usr/bin/python3"  # as bench.py: an absolute interpreter, no forking shim between
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
_rounds = iter(range(1, 1 << 30))  # users of successive measure() calls never meet


# --- the front's way to the stand-in --------------------------------------------------------------

class FrontBridge:
    """A plain-HTTP server on loopback for the SSH front (ssh_front.py speaks http:// only), which
    hands each `POST /_standin/ssh` on to the run's stand-in over HTTPS and its answer back."""

    def __init__(self, standin, ca):
        target = urllib.parse.urlsplit(standin.url)
        self.target = (target.hostname, target.port, ca.context)
        self.connection = None
        self.lock = threading.Lock()
        bridge = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                status, answer = bridge.forward(self.path, body)
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *_):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()

    def forward(self, path, body):
        with self.lock:
            for attempt in range(2):
                if self.connection is None:
                    host, port, context = self.target
                    self.connection = http.client.HTTPSConnection(host, port, context=context, timeout=60)
                try:
                    self.connection.request("POST", path, body=body, headers={"Content-Type": "application/json"})
                    answer = self.connection.getresponse()
                    return answer.status, answer.read()
                except (OSError, http.client.HTTPException):
                    # The stand-in closed the kept connection (--idle-close): once more on a new one.
                    self.connection.close()
                    self.connection = None
                    if attempt:
                        raise

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
        if self.connection is not None:
            self.connection.close()


# --- the server and the client's home ---------------------------------------------------------------

class LoopbackSSHD:
    """Tests/Standin/sshd_standin.py (its ready line: port, dir, host_key, authorized_keys, user),
    with a client key and a client home made for the run; `authorize(user)` lets the key in as
    that user of the stand-in, alone."""

    def __init__(self, standin, ca):
        self.bridge = FrontBridge(standin, ca)
        self.process = subprocess.Popen([PYTHON, SSHD_STANDIN], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True)
        line = self.process.stdout.readline()
        if not line:
            self.bridge.stop()
            raise RuntimeError("sshd_standin.py did not start (openssh-server installed?)")
        ready = json.loads(line)
        self.port, self.user, self.host_key = ready["port"], ready["user"], ready["host_key"]
        self.directory, self.authorized_keys = ready["dir"], ready["authorized_keys"]
        self.remote = f"{self.user}@127.0.0.1:{self.port}"
        # The client: a key, and a home that nss_wrapper makes the passwd entry's (SSHClientHome).
        self.client = tempfile.mkdtemp(prefix="gbnotify-bench-ssh-")
        self.home = os.path.join(self.client, "home")
        os.makedirs(os.path.join(self.home, ".ssh"), mode=0o700)
        self.key = os.path.join(self.client, "key")
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "gbnotify-bench", "-f", self.key],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(self.key + ".pub") as public:
            self.public_key = public.read().strip()
        with open(os.path.join(self.home, ".ssh", "config"), "w") as config:
            config.write(f"Host *\n    IdentityFile {self.key}\n    IdentitiesOnly yes\n")
        with open(os.path.join(self.home, ".ssh", "known_hosts"), "w") as known:
            known.write(f"[127.0.0.1]:{self.port} {self.host_key}\n")
        entry, group = pwd.getpwuid(os.getuid()), grp.getgrgid(os.getgid())
        with open(os.path.join(self.client, "passwd"), "w") as passwd:
            passwd.write(f"{entry.pw_name}:x:{os.getuid()}:{os.getgid()}:{entry.pw_name}:{self.home}:/bin/sh\n")
        with open(os.path.join(self.client, "group"), "w") as groups:
            groups.write(f"{group.gr_name}:x:{os.getgid()}:\n")
        self.environment = {
            "LD_PRELOAD": "libnss_wrapper.so",
            "NSS_WRAPPER_PASSWD": os.path.join(self.client, "passwd"),
            "NSS_WRAPPER_GROUP": os.path.join(self.client, "group"),
            "HOME": self.home,
        }
        # sshd_standin.py's one child: the sshd listener (-D, so it does not fork away).
        with open(f"/proc/{self.process.pid}/task/{self.process.pid}/children") as children:
            self.sshd_pid = int(children.read().split()[0])

    def authorize(self, username):
        """The client key, and it alone, as `username` of the stand-in with full scope (sshd
        reads the file at every login)."""
        with open(self.authorized_keys, "w") as keys:
            keys.write(f'environment="GITBAY_USER={username}",environment="GITBAY_KEY_SCOPE=full",'
                       f'environment="GITBAY_STANDIN={self.bridge.url}",restrict {self.public_key}\n')

    def cpu_seconds(self, settle_timeout=10):
        """The sshd listener's CPU and its reaped children's, once no connection of it is left."""
        deadline = time.monotonic() + settle_timeout
        while True:
            with open(f"/proc/{self.sshd_pid}/task/{self.sshd_pid}/children") as children:
                if not children.read().split() or time.monotonic() > deadline:
                    break
            time.sleep(0.005)
        with open(f"/proc/{self.sshd_pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        # Fields 14 to 17 (utime, stime, cutime, cstime); the split starts at field 3.
        return sum(int(value) for value in fields[11:15]) / CLOCK_TICKS

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.bridge.stop()
        shutil.rmtree(self.client, ignore_errors=True)


# --- measuring --------------------------------------------------------------------------------------

def children_cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


class Ctl:
    """The release gbnotifyctl with config and state of its own, the run's CA trusted through
    SSL_CERT_DIR and the SSH client home's environment."""

    def __init__(self, bin_dir, ca, sshd):
        self.binary = os.path.join(bin_dir, "gbnotifyctl")
        self.home = tempfile.mkdtemp(prefix="gbnotify-bench-ctl-")
        self.environment = {key: value for key, value in os.environ.items() if key != "SSH_AUTH_SOCK"}
        self.environment.update(sshd.environment)
        self.environment.update(
            XDG_CONFIG_HOME=os.path.join(self.home, "config"), XDG_STATE_HOME=os.path.join(self.home, "state"),
            XDG_CACHE_HOME=os.path.join(self.home, "cache"), SSL_CERT_DIR=ca.trust_directory)

    def run(self, arguments, stdin=""):
        """Runs gbnotifyctl; (wall seconds, CPU seconds of it and its children, its outcome)."""
        cpu = children_cpu_seconds()
        start = time.monotonic()
        outcome = subprocess.run([self.binary] + arguments, input=stdin, env=self.environment,
                                 capture_output=True, text=True, timeout=120)
        wall = time.monotonic() - start
        return wall, children_cpu_seconds() - cpu, outcome

    def checked(self, arguments, stdin=""):
        wall, cpu, outcome = self.run(arguments, stdin)
        if outcome.returncode != 0:
            raise RuntimeError(f"gbnotifyctl {' '.join(arguments)} exited {outcome.returncode}: {outcome.stderr.strip()}")
        return wall, cpu, outcome

    def remove(self):
        shutil.rmtree(self.home, ignore_errors=True)


def measure(bin_dir, standin, ca, runs, warmup=1):
    """`runs` rounds (after `warmup` unmeasured ones) of `account add --ssh` and `account add` with
    the token on standard input, each for a fresh user of `standin` (a bench.Standin; `ca` its
    bench.RunCA), removed again afterwards. Starts and stops its own sshd. Returns
    {"ssh": [{"wall_ms", "cpu_ms", "sshd_cpu_ms"}], "stdin": [{"wall_ms", "cpu_ms"}],
     "openssh": "OpenSSH_9.2p1 ..."}, one entry per measured round, in order."""
    sshd = LoopbackSSHD(standin, ca)
    ctl = Ctl(bin_dir, ca, sshd)
    host = urllib.parse.urlsplit(standin.url).netloc
    result = {"ssh": [], "stdin": [], "openssh": openssh_version()}
    tag = next(_rounds)
    try:
        for round_number in range(warmup + runs):
            measured = round_number >= warmup
            users = {kind: f"mint{tag}-{round_number}-{kind}" for kind in ("ssh", "stdin")}
            for user in users.values():
                standin.control("users", {"username": user})
            token = standin.control("tokens", {"username": users["stdin"]})["token"]
            sshd.authorize(users["ssh"])
            order = ["ssh", "stdin"] if round_number % 2 == 0 else ["stdin", "ssh"]
            for kind in order:
                if kind == "ssh":
                    sshd_before = sshd.cpu_seconds()
                    wall, cpu, outcome = ctl.checked(["account", "add", standin.url, "--ssh", sshd.remote])
                    row = {"wall_ms": wall * 1000, "cpu_ms": cpu * 1000,
                           "sshd_cpu_ms": (sshd.cpu_seconds() - sshd_before) * 1000}
                else:
                    wall, cpu, outcome = ctl.checked(["account", "add", standin.url], stdin=token)
                    row = {"wall_ms": wall * 1000, "cpu_ms": cpu * 1000}
                if not outcome.stdout.startswith(f"Added {users[kind]}@{host} "):
                    raise RuntimeError(f"account add --{kind} said {outcome.stdout.strip()!r}")
                # Unmeasured: deregisters, deletes the item, and revokes the minted token over SSH.
                ctl.checked(["account", "remove", f"{users[kind]}@{host}"])
                if measured:
                    result[kind].append(row)
    finally:
        ctl.remove()
        sshd.stop()
    return result


def summary(result):
    """The medians: {"ssh": {"wall_ms", "cpu_ms", "sshd_cpu_ms"}, "stdin": {"wall_ms", "cpu_ms"}}."""
    return {kind: {key: statistics.median(row[key] for row in rows) for key in rows[0]}
            for kind, rows in result.items() if isinstance(rows, list) and rows}


def openssh_version():
    """`ssh -V`'s words (it writes them to standard error)."""
    answer = subprocess.run(["ssh", "-V"], capture_output=True, text=True)
    return answer.stderr.strip()
