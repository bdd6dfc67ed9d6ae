#!/usr/bin/python3
"""Debian's notifiers measured beside gbnotifyd as peers (Mailnag, gnubiff), by bench.py's `peers`:
each against the run's IMAP stand-in (imap_standin.py), reached over IMAPS with the run's CA, left
idle, and measured as Mailnag is (perf over the window, memory from /proc).

    peer = GnuBiff(ca)          # or Mailnag(ca); ca: bench.py's RunCA; starts the stand-in and the
                                # peer, returns once IDLE is on
    peer.pid                    # the process to measure (its threads included)
    peer.commands_since(t)      # the IMAP commands the stand-in received since CLOCK_MONOTONIC t
    peer.stop()
    version(peer.PACKAGE)       # Debian's version of the package (dpkg-query)

What was looked for (issue 29), on Debian 12 with `apt-cache search` and `apt-cache show`: a package
that tells a desktop user of new mail in an IMAP inbox, or of activity on a forge (its API, or its
Atom feed through a feed reader that notifies), and runs with no one at the screen. Of those that
exist, only two watch an IMAP inbox themselves and show something on the desktop: Mailnag (already
measured) and gnubiff. ayatana-webmail would be a third, but it will not connect on a machine
without the Internet (before connecting, and then every minute, it sends a HEAD request to
https://www.google.com and waits while that fails), and it needs an AppIndicator and a GTK display.
goimapnotify, imapnotify, mail-notification and bubblemail are not in Debian 12; xbiff (x11-apps),
coolmail, biff, newmail, mailcheck, xlbiff and xbuffy watch only local mailboxes; wmbiff, xlassie
and bbmail are dock applets that need a window manager's dock; imaprowl posts to the Prowl push
service; no Debian package watches GitHub, GitLab, Gitea or Forgejo notifications (gh, gitlab-cli
and python3-gitlab are clients, not notifiers), and the feed readers (newsboat, liferea, rssguard,
akregator, feed2exec, rss2email) would need a forge feed, which the gitbay stand-in does not serve.

gnubiff (2.2.17, C++ with GTK 3) runs without a display with `--nogui`: one IMAP account, its own
default of IMAP IDLE when the server offers it, renewed about every 3 minutes (on its read timeout,
its `delay` of 180 s by default, it sends DONE and IDLE again; 189 s apart here), in between not
waking at all (its two threads wait in poll and in a read), over IMAPS, the certificate checked against a CA
file (`authentication = certificate`, `certificate` = the run's trust bundle: the system's CAs and
the run's, as gbnotifyd and curl are given). Its password is in its config file, in the clear (the
Debian build saves it there; it has no keyring). Before IDLE it asks `SEARCH NOT SEEN` by message sequence number, which imap_standin.py answers
as it answers Mailnag's `UID SEARCH UNSEEN`. Nothing is unseen, so gnubiff fetches nothing and goes
straight to IDLE, as Mailnag does.
"""

import hashlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON = "/usr/bin/python3"  # the stand-ins need Debian's, as in bench.py


def version(package):
    """Debian's version of an installed package, or "unknown"."""
    answer = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package], capture_output=True, text=True)
    return answer.stdout.strip() or "unknown"


class ImapStandin:
    """imap_standin.py with one idle mailbox, and the commands it received: (CLOCK_MONOTONIC time,
    name)."""

    def __init__(self, ca, user, password):
        self.commands = []
        self.idle = threading.Event()
        self.process = subprocess.Popen(
            [PYTHON, os.path.join(HERE, "imap_standin.py"), "--cert", ca.certificate, "--key", ca.key,
             "--user", user, "--password", password], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.port = json.loads(self.process.stdout.readline())["port"]
        threading.Thread(target=self._read_commands, daemon=True).start()

    def _read_commands(self):
        for line in self.process.stderr:
            moment, _, command = line.strip().partition(" ")
            try:
                self.commands.append((float(moment), command))
            except ValueError:
                continue  # a traceback of a connection the client dropped, not a command
            if command == "IDLE":
                self.idle.set()

    def commands_since(self, moment):
        return [command for at, command in self.commands if at >= moment]

    def stop(self):
        self.process.terminate()
        self.process.wait()


class Peer:
    """What the peers share: started against an ImapStandin, measured once in IMAP IDLE."""

    def launch(self, name, command, environment):
        """Starts the peer; returns once the stand-in saw its IDLE (RuntimeError after 60 s)."""
        self.process = subprocess.Popen(command, env=environment, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if not self.server.idle.wait(60):
            commands = self.server.commands
            self.stop()
            raise RuntimeError(f"{name} did not reach IMAP IDLE within 60 s (commands: {commands})")
        self.pid = self.process.pid

    def commands_since(self, moment):
        return self.server.commands_since(moment)

    def stop(self):
        stop_process(self.process)
        self.server.stop()
        shutil.rmtree(self.home, ignore_errors=True)


def stop_process(process):
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


# --- Mailnag --------------------------------------------------------------------------------------

class Mailnag(Peer):
    """Debian's Mailnag with one IMAP account against the stand-in, in its default mode (IMAP IDLE
    over IMAPS), its config and data in directories of its own and its password in the session's
    keyring, where Mailnag keeps it."""

    PACKAGE = "mailnag"
    SCHEMA = "com.github.pulb.mailnag"
    USER, PASSWORD = "cmc", "bench-password"

    def __init__(self, ca):
        self.home = tempfile.mkdtemp(prefix="gbnotify-bench-mailnag-")
        self.server = ImapStandin(ca, self.USER, self.PASSWORD)
        config = os.path.join(self.home, "config", "mailnag")
        os.makedirs(config)
        with open(os.path.join(config, "mailnag.cfg"), "w") as file:
            # Mailnag's defaults (Mailnag/common/config.py), and an account as its dialog saves one.
            file.write(f"[core]\npoll_interval = 10\nimap_idle_timeout = 10\nmailbox_seen_flags = 1\n"
                       f"autostart = 1\nconnectivity_test = networkmonitor\n"
                       f"enabled_plugins = dbusplugin, soundplugin, libnotifyplugin\n\n"
                       f"[account1]\nenabled = 1\ntype = imap\nname = bench\nuser = {self.USER}\n"
                       f"server = 127.0.0.1\nport = {self.server.port}\nssl = 1\nimap = 1\nidle = 1\nfolder = []\n")
        # Mailnag's own key for the secret: md5(user + server + str(is_imap)) (common/accounts.py).
        secret_id = hashlib.md5(f"{self.USER}127.0.0.1True".encode()).hexdigest()
        subprocess.run(["secret-tool", "store", "--label=Mailnag bench", "xdg:schema", self.SCHEMA, "id", secret_id],
                       input=self.PASSWORD, text=True, check=True)
        environment = dict(os.environ, XDG_CONFIG_HOME=os.path.join(self.home, "config"),
                           XDG_DATA_HOME=os.path.join(self.home, "data"), XDG_CACHE_HOME=os.path.join(self.home, "cache"))
        self.launch("Mailnag", ["/usr/bin/mailnag", "--quiet"], environment)

    def stop(self):
        super().stop()
        subprocess.run(["secret-tool", "clear", "xdg:schema", self.SCHEMA], check=False)


# --- gnubiff --------------------------------------------------------------------------------------

class GnuBiff(Peer):
    """Debian's gnubiff with one IMAP account against the stand-in, headless (`--nogui`), in its
    default mode (IMAP IDLE), over IMAPS with the run's trust bundle, its config in a directory of
    its own (also its HOME, so that it touches nothing of the session's)."""

    PACKAGE = "gnubiff"
    USER, PASSWORD = "cmc", "bench-password"

    def __init__(self, ca):
        self.home = tempfile.mkdtemp(prefix="gbnotify-bench-gnubiff-")
        self.server = ImapStandin(ca, self.USER, self.PASSWORD)
        self.config = os.path.join(self.home, ".gnubiffrc")
        # What its preferences dialog saves for such an account; every other option at its default
        # (delay 180 s, use_idle true). `version` is the binary's, or gnubiff "converts" the file as
        # an old one and garbles the password.
        parameters = {"protocol": "imap4", "name": "bench", "address": "127.0.0.1", "use_other_port": "true",
                      "other_port": str(self.server.port), "authentication": "certificate",
                      "certificate": ca.trust_file, "username": self.USER, "password": self.PASSWORD,
                      "use_idle": "true"}
        with open(self.config, "w") as file:
            file.write('<?xml version="1.0"?>\n<configuration-file>\n  <mailbox>\n')
            for name, value in parameters.items():
                file.write(f'    <parameter name="{name}" value="{value}"/>\n')
            file.write(f'  </mailbox>\n  <information>\n'
                       f'    <parameter name="version" value="{version(self.PACKAGE).split("-")[0]}"/>\n'
                       f'  </information>\n</configuration-file>\n')
        os.chmod(self.config, 0o600)
        environment = {key: value for key, value in os.environ.items() if key not in ("DISPLAY", "WAYLAND_DISPLAY")}
        environment["HOME"] = self.home
        self.launch("gnubiff", ["/usr/bin/gnubiff", "--nogui", "--noconfigure", f"--config={self.config}"], environment)
