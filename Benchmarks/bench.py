#!/usr/bin/env python3
"""gbnotify's benchmarks, beside the do-it-yourself baseline (Benchmarks/baseline.sh) and a real
peer (Mailnag), in one run.

Run by Benchmarks/run (`make bench`) inside scripts/desktop-session, which gives it a private
session bus, an unlocked gnome-keyring and dunst on Xvfb. Everything else it starts itself:

- a CA made for the run (openssl, ECDSA P-256 as certbot makes by default) and a certificate
  signed by it for 127.0.0.1 to 127.0.0.5;
- the gitbay stand-in (Tests/Standin) behind TLS with that certificate
  (Benchmarks/tls_standin.py), with 100 users: every figure is over HTTPS, as with a real
  instance. gbnotifyd trusts the CA with `ca-file`, the baseline's curl with `--cacert`, each
  given a bundle of the system's CAs (Debian's ca-certificates) with the run's CA added, so
  that both load as many CAs as with their default trust against a public instance;
- a stand-in system bus (Tests/Standin/system_bus_standin.py: logind and NetworkManager, online)
  that every gbnotifyd follows through DBUS_SYSTEM_BUS_ADDRESS, as on a desktop;
- for some scenarios the ntfy-compatible relay stand-in behind TLS, an IMAP stand-in
  (Benchmarks/imap_standin.py) for Mailnag, and `gbnotify-bench server`, a notification server
  that answers at once, in place of dunst.
It puts the accounts each scenario needs into the session's keyring, runs the release gbnotifyd
(or the baseline, or Mailnag) and rewrites the results block of BENCHMARKS.md.

How each figure is taken:
- daemon CPU time and context switches (wake-ups): `perf stat -e task-clock,context-switches
  -p PID`, started with its counters off and switched on and off through its control pipe
  exactly at the window's edges; it counts every thread of the process (gbnotifyd's own, its
  libcurl thread, GLib's main-loop and gdbus threads for libnotify, the keyring's thread),
  threads started meanwhile included. Mailnag is measured the same way;
- the baseline's CPU time and context switches: getrusage(RUSAGE_CHILDREN) around a run with a
  fixed number of rounds (the script and everything it started and waited for), less a run of
  one round (its start-up: keyring look-ups, first full answers);
- polls, their statuses and times: the stand-in's request log (CLOCK_MONOTONIC, the clock this
  script reads too); TLS handshakes and whether each resumed a session: tls_standin.py's note of
  each handshake; a handshake is one new connection;
- notifications shown: `Notify` calls seen by a `dbus-monitor` on the session bus;
- memory: VmRSS from /proc/PID/status, Pss and Private_Dirty from /proc/PID/smaps_rollup.
  Private_Dirty is what the process alone costs the machine (its heap, stacks and written data);
  VmRSS also counts every shared library page it maps, which other processes map too;
- start to ready: `READY=1` on a NOTIFY_SOCKET this script listens on;
- `wakeup`, the wake-up path (last: it stops dunst): the instant notification server notes the
  CLOCK_MONOTONIC time each `Notify` reaches its handler. A relay line: from the relay stand-in's
  write of the line to the daemon's stream (its `/_relay/sent`, noted as the write starts) to that
  receipt; the account polls the stand-in over HTTPS, finds the new notice and shows it, so the
  poll is included (split at the last poll of the account before the receipt).
  `Deliver`: from `gbnotify-bench deliver`'s call sent to that receipt. 100 accounts, one notice
  added per line (unmeasured) to the account the line is for, taken in turn so that each
  account's wake-ups are more than 2 s apart (the daemon's minimum gap), each line once the
  last one's notification is shown; the screen is cleared between two (unmeasured). Receipts are
  paired with lines by the notice's number in the body. Its floor: the same list request for the
  accounts in turn, straight through libcurl from a Swift process on a kept connection
  (`gbnotify-bench poll`), from the request handed to libcurl to the answer read;
- `notify`: the floor under showing anything on dunst: a bare `Notify` round trip from a Swift
  process (gbnotify-bench notify), beside one `notify-send` run, start to exit;
- `tls`: one account on each of 5 instances (127.0.0.1 to 127.0.0.5 on one tls_standin.py, so
  that each account has connections and TLS sessions of its own, as accounts on different
  instances do), three servers: one that keeps connections, one that closes a connection idle
  for 5 s (sending session tickets, as nginx and Apache do), one that closes them and sends no
  tickets (a full handshake every poll, the worst case). CPU per poll is the window's CPU over
  its polls (no idle CPU is subtracted: the daemon uses none between polls); handshakes per
  account per hour are the window's handshakes scaled to an hour;
- `hundred`: 100 accounts on one instance at the shortest interval (10 s): CPU per 304 poll
  (less the idle CPU of `idle`), requests per account per minute and gaps, against the rate
  limits;
- `laptop`: 10 accounts and the relay, poll-interval 3600 (no poll due on its own): logind's
  PrepareForSleep(true), then (false) after a second; NetworkManager going offline and coming
  back. From the stand-in's signal sent to the last account's poll arriving at the stand-in,
  and to the relay stand-in's new subscription; perf over a minute offline;
- `peers`: Mailnag 2.2 and gnubiff 2.2 (Debian's; Benchmarks/peers.py says what else was looked
  for), each with one IMAP account in its default mode (IMAP IDLE, over IMAPS) against
  imap_standin.py, idle for a minute once its first check is done and IDLE is on; beside them
  gbnotifyd with one account, polling at the default interval, and on a relay;
- `layout`: the terminal view's layout of hostile issues, in process (gbnotify-bench layout): a
  1 MiB body of tabs, a body of one unbroken 1 MiB word, that word as a system entry, 1 MiB of
  tab-indented code, and beside them 1 MiB of prose (the layout without hostile text), each laid
  out as `gbnotifyctl show` lays it out (`PlainText.item`, 80 columns; each text cut to 64 KiB
  first), 20 times after 3 unmeasured, CLOCK_MONOTONIC around each; no daemon involved;
- `rules`: what deciding what pops up costs, in process (`gbnotify-bench rules`): 100 rules parsed
  from a config as gbnotifyd parses it, all but a catch-all missing every notice (so each notice
  is tried against all of them, the worst case of first match wins), evaluated against 1,000
  notices; the CPU time of the calling thread (CLOCK_THREAD_CPUTIME_ID) per run of all 1,000,
  after one unmeasured run; beside it the same with no rules at all;
- `growth`: 1, 10, 100 and 1,000 accounts (`--growth-counts`), each of a user of its own, spread
  over 10 instances (10 loopback addresses of nghttpx before one stand-in,
  Tests/Standin/http2_front.py, as a real instance sits behind its proxy), at the default 30 s,
  twice: nghttpx offering HTTP/2 (ALPN h2 and http/1.1), then only HTTP/1.1: from the daemon's
  start to the stand-in's first list request of every account, with the TLS handshakes until then
  (the connections of nghttpx's access log), then --growth-windows windows back to back: CPU per
  304 poll (over them all, and each window's), and at their end memory, threads
  (`/proc/PID/task`) and open files (`/proc/PID/fd`); beside the HTTP/1.1 runs the baseline over
  the same accounts, up to 100 (a round of 1,000 would outlast its interval). Then, through each
  front, 100 accounts on one instance at 10 s: the connections that carried a window's requests
  (nghttpx's access log), those the daemon holds to the front at its end (`ss -tnp`), polls per
  account per interval and the gaps between two polls of an account (the stand-in's log);
- `tray_cpu`: the daemon's CPU per notice with the tray off and on, a tray host that asks for every
  new icon (desktop_standins.py), and that of the icons drawn for it (`gbnotifyctl draw-tray-icon`,
  which the daemon starts and reaps: cutime and cstime in /proc/PID/stat);
- `ssh_add`: `gbnotifyctl account add --ssh` against the tests' loopback sshd, beside the same
  command with the token on standard input (Benchmarks/ssh_mint.py says how);
- `soak`, a busy day compressed (`make soak`; last, since it stops dunst): SOAK_DAY's events
  spread over --soak-seconds, the first minute of them a warm-up, against 250 accounts, a relay and
  desktop_standins.py's notification server, which the benchmark clicks; Private_Dirty, Pss,
  VmRSS, open files and threads sampled every 30 s from the warm-up's end; each notice numbered,
  and each `Notify` body searched for the numbers, so that every notice is shown exactly once
  (or counted once in its account's "N new" summary);
- poll latency: from the stand-in's receipt of a list request to the moment this script reads
  the daemon's `--verbose` line about the 304.
"""

import argparse
import json
import os
import platform
import re
import resource
import shutil
import signal
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

import peers
import ssh_mint

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASELINE = os.path.join(ROOT, "Benchmarks", "baseline.sh")
TLS_STANDIN = os.path.join(ROOT, "Benchmarks", "tls_standin.py")
GITBAY_STANDIN = os.path.join(ROOT, "Tests", "Standin", "gitbay_standin.py")
HTTP2_FRONT = os.path.join(ROOT, "Tests", "Standin", "http2_front.py")
RELAY = os.path.join(ROOT, "Tests", "Standin", "relay_standin.py")
DESKTOP_STANDINS = os.path.join(ROOT, "Benchmarks", "desktop_standins.py")
SYSTEM_BUS = os.path.join(ROOT, "Tests", "Standin", "system_bus_standin.py")
PYTHON = "/usr/bin/python3"  # the stand-ins need Debian's (python3-gi); a forking shim would keep signals
SCHEMA = "org.gitbay.Account"
USERS = [f"u{n:03d}" for n in range(100)]
# The tls scenario's instances: one loopback address each, all on one stand-in.
# Five: libcurl keeps five TLS sessions per transfer handle (see BENCHMARKS.md's notes).
INSTANCE_HOSTS = [f"127.0.0.{n}" for n in range(1, 6)]
# `growth` and `soak`: up to 1,000 accounts of users of their own, spread over 10 instances.
MANY_HOSTS = [f"127.0.0.{n}" for n in range(1, 11)]
MANY_USERS = [f"g{n:04d}" for n in range(1000)]
GROWTH_COUNTS = (1, 10, 100, 1000)
# `growth` through nghttpx: what its ALPN offers, each a table of its own, HTTP/2 first.
GROWTH_PROTOCOLS = {"HTTP/2": "h2,http/1.1", "HTTP/1.1": "http/1.1"}
# `growth`'s windows, each one CPU per 304 poll (--growth-windows).
GROWTH_WINDOWS = 3
# `growth`, beside each protocol: this many accounts on one instance, at the shortest interval.
ONE_INSTANCE_ACCOUNTS = 100
# `soak`, a busy day: what happens in it, over --soak-seconds. The relay reconnects 200 times:
# after each return of the network, each resume and each drop (spaced past the 30 s after which
# the daemon's backoff starts afresh), and each return polls every account, which with the
# polls of the relay's 30 s interval makes the day's 50,000.
TRAY_ROUNDS = 20
SOAK_ACCOUNTS = 250
SOAK_SECONDS = 720
SOAK_DAY = {"notice": 5000, "click": 1000, "mark_read": 500, "withdraw": 1000, "network": 185, "relay_drop": 10,
            "suspend": 5, "keyring": 50, "reload": 20, "server_restart": 10, "snooze": 5}
SOAK_SNOOZE_SECONDS = 40
# The day's clicks, each on the action of its notification with this key.
SOAK_CLICKS = {"click": "default", "mark_read": "mark-read"}
# A popup's life, compressed as the day is (dunst's 10 s, 60 times shorter), so that the screen
# holds what a day's screen holds at any moment, not the whole day's notices at once.
SOAK_POPUP_SECONDS = 0.2
SOAK_SAMPLE_SECONDS = 30
# After the last event, a poll of every account at the relay's interval (30 s), and then some.
SOAK_SETTLE_SECONDS = 35
# Debian's bundle of the system's CAs (ca-certificates): what libcurl and curl load by default.
SYSTEM_CAS = "/etc/ssl/certs/ca-certificates.crt"


def fail(message):
    sys.exit(f"bench: {message}")


def percentile(values, fraction):
    """Nearest-rank percentile of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, int(-(-fraction * len(ordered) // 1)))
    return ordered[rank - 1]


def median(values):
    return statistics.median(values) if values else float("nan")


def run_quietly(arguments, **options):
    return subprocess.run(arguments, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, **options)


# --- TLS: a CA made for the run -------------------------------------------------------------------

class RunCA:
    """A CA and a server certificate signed by it for MANY_HOSTS, made with openssl for this
    run; the CA's key is thrown away once the certificate is signed. The system's CAs and this
    one are trusted, as against a real instance with the default trust: by curl (`--cacert`) as
    `trust_file`, a bundle of them all; by gbnotifyd, which reads the system's CAs from the
    hashed directory when no `ca-file` is set, as `trust_directory`, the same CAs hashed
    (`openssl rehash`), given as SSL_CERT_DIR."""

    def __init__(self):
        self.directory = tempfile.mkdtemp(prefix="gbnotify-bench-ca-")
        path = lambda name: os.path.join(self.directory, name)
        self.ca_file, self.certificate, self.key = path("ca.pem"), path("server.pem"), path("server-key.pem")
        curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        run_quietly(["openssl", "req", "-x509", *curve, "-days", "2", "-subj", "/CN=gbnotify bench CA",
                     "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign",
                     "-keyout", path("ca-key.pem"), "-out", self.ca_file])
        run_quietly(["openssl", "req", *curve, "-subj", "/CN=127.0.0.1", "-keyout", self.key, "-out", path("server.csr")])
        with open(path("extensions"), "w") as extensions:
            extensions.write("subjectAltName=" + ",".join(f"IP:{host}" for host in MANY_HOSTS)
                             + "\nextendedKeyUsage=serverAuth\n")
        run_quietly(["openssl", "x509", "-req", "-in", path("server.csr"), "-CA", self.ca_file,
                     "-CAkey", path("ca-key.pem"), "-CAcreateserial", "-days", "2", "-extfile", path("extensions"),
                     "-out", self.certificate])
        os.unlink(path("ca-key.pem"))
        self.trust_file = path("trust.pem")
        with open(self.trust_file, "w") as trust:
            if os.path.exists(SYSTEM_CAS):
                trust.write(open(SYSTEM_CAS).read())
            trust.write(open(self.ca_file).read())
        self.trusted = open(self.trust_file).read().count("BEGIN CERTIFICATE")
        self.trust_directory = path("trust")
        os.mkdir(self.trust_directory)
        system = os.path.dirname(SYSTEM_CAS)
        for name in os.listdir(system) if os.path.isdir(system) else []:
            if name.endswith(".pem"):
                os.symlink(os.path.realpath(os.path.join(system, name)), os.path.join(self.trust_directory, name))
        shutil.copy(self.ca_file, os.path.join(self.trust_directory, "gbnotify-bench-ca.pem"))
        run_quietly(["openssl", "rehash", self.trust_directory])
        self.context = ssl.create_default_context(cafile=self.ca_file)

    def remove(self):
        shutil.rmtree(self.directory, ignore_errors=True)


def control_call(context, url, body=None, timeout=120):
    """One request to a stand-in's control API; its JSON answer."""
    data = None if body is None else json.dumps(body).encode()
    with urllib.request.urlopen(urllib.request.Request(url, data=data), timeout=timeout, context=context) as answer:
        return json.loads(answer.read())


# --- the gitbay stand-in --------------------------------------------------------------------------

class Standin:
    """tls_standin.py: the gitbay stand-in behind TLS, on one or more loopback addresses."""

    def __init__(self, ca, users, hosts=("127.0.0.1",), idle_close=None, resumption=True):
        self.ca = ca
        arguments = [PYTHON, TLS_STANDIN, "--cert", ca.certificate, "--key", ca.key, "--hosts", ",".join(hosts)]
        if idle_close:
            arguments += ["--idle-close", str(idle_close)]
        if not resumption:
            arguments.append("--no-resumption")
        self.process = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.process.stdout.readline()
        if not line:
            fail("the gitbay stand-in did not start")
        ready = json.loads(line)
        self.url, self.urls = ready["url"], ready["urls"]
        self.add_users(users)

    def add_users(self, users):
        self.tokens = {}
        for user in users:
            self.control("users", {"username": user})
            self.tokens[user] = self.control("tokens", {"username": user, "scope": "full"})["token"]

    def control(self, path, body=None):
        return control_call(self.ca.context, self.url + "/_standin/" + path, body)

    def requests(self):
        return self.control("requests")["requests"]

    def list_requests(self):
        return [r for r in self.requests() if r["query_argv"] == ["notifications", "list"]]

    def handshakes(self):
        """The handshakes since the last clear of connections that carried API requests (this
        script's own control requests each come on a connection of their own)."""
        api = {r["connection"] for r in self.requests() if r["path"].startswith("/api/")}
        everything = control_call(self.ca.context, self.url + "/_bench/handshakes")["handshakes"]
        return [handshake for handshake in everything if handshake["connection"] in api]

    def clear(self):
        """Forgets the requests and handshakes so far."""
        self.control("requests/clear", {})
        control_call(self.ca.context, self.url + "/_bench/handshakes/clear", {})

    def wait_for_answered_lists(self, count, timeout=120):
        """Waits until `count` list requests since the last clear have been answered."""
        deadline = time.monotonic() + timeout
        while True:
            requests = self.requests()
            answered = [r for r in requests if r["query_argv"] == ["notifications", "list"] and r["status"] is not None]
            if len(answered) >= count:
                return answered
            if time.monotonic() > deadline:
                fail(f"{len(answered)} list requests answered, not {count}, within {timeout} s")
            # Blocks in the stand-in until one more request arrives (or briefly, if the last
            # one is only waiting for its status).
            self.control(f"requests/wait?count={len(requests) + 1}&timeout=0.2")

    def wait_for_polls_of(self, users, since, timeout=60):
        """The moment each of `users` was first polled at or after `since` (a list request
        received; CLOCK_MONOTONIC), once every one of them has been."""
        deadline = time.monotonic() + timeout
        while True:
            requests = self.requests()
            first = {}
            for request in requests:
                if (request["query_argv"] == ["notifications", "list"] and request["time"] >= since
                        and request["username"] in users and request["username"] not in first):
                    first[request["username"]] = request["time"]
            if len(first) == len(users):
                return first
            if time.monotonic() > deadline:
                fail(f"{len(first)} of {len(users)} accounts polled within {timeout} s")
            self.control(f"requests/wait?count={len(requests) + 1}&timeout=0.5")

    def add_notices(self, users, count):
        for user in users:
            if count == 1:
                self.control("notifications", {"username": user})
            else:
                self.control("notifications/bulk", {"username": user, "count": count})

    def add_numbered_notice(self, user, number):
        """A notice whose body and path carry `number`, so its notification can be found by it;
        its id."""
        return self.control("notifications", {"username": user, "summary": f"opened issue #{number}",
                                              "path": f"krz/gitbay/issues/{number}"})["id"]

    def newest_ids(self, users):
        newest = {user: 0 for user in users}
        for row in self.control("state")["notifications"]:
            if row["username"] in newest:
                newest[row["username"]] = max(newest[row["username"]], row["id"])
        return newest

    def stop(self):
        self.process.terminate()
        self.process.wait()


class FrontedStandin(Standin):
    """The gitbay stand-in behind nghttpx (Tests/Standin/http2_front.py), as a real instance
    behind its reverse proxy: TLS ends at nghttpx on `hosts` (one instance each, one database
    behind), its ALPN offering `alpn`; the stand-in itself, plain HTTP, is reached for its
    control API only. A TLS handshake is a connection of nghttpx's access log that carried an
    API request (and resumed when the log says so)."""

    def __init__(self, ca, users, hosts, alpn):
        self.ca = ca
        self.backend = subprocess.Popen([PYTHON, GITBAY_STANDIN, "--port", "0"], stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True)
        line = self.backend.stdout.readline()
        if not line:
            fail("the gitbay stand-in did not start")
        ready = json.loads(line)
        self.access_log = os.path.join(ca.directory, f"nghttpx-{alpn.replace('/', '_')}.log")
        self.process = subprocess.Popen(
            [PYTHON, HTTP2_FRONT, "--backend", str(ready["port"]), "--hosts", ",".join(hosts), "--cert", ca.certificate,
             "--key", ca.key, "--access-log", self.access_log, "--alpn", alpn],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.process.stdout.readline()
        if not line:
            fail("nghttpx did not start")
        front = json.loads(line)
        self.url, self.urls, self.port = ready["url"], front["urls"], front["port"]
        self.log_start = 0
        self.add_users(users)

    def handshakes(self):
        connections = {}
        with open(self.access_log) as log:
            log.seek(self.log_start)
            for line in log:
                address, port, _, reused, _, _, path = line.rstrip("\n").split(" ", 6)
                if path.startswith("/api/"):
                    connections.setdefault((address, port), {"connection": f"{address}:{port}", "resumed": reused == "r"})
        return list(connections.values())

    def clear(self):
        self.control("requests/clear", {})
        self.log_start = os.path.getsize(self.access_log)

    def stop(self):
        super().stop()
        self.backend.terminate()
        self.backend.wait()


# --- the relay, the system bus ----------------------------------------------------------------------

class Relay:
    """The ntfy-compatible relay stand-in behind TLS."""

    def __init__(self, ca):
        self.ca = ca
        self.process = subprocess.Popen(
            [PYTHON, RELAY, "--tls-cert", ca.certificate, "--tls-key", ca.key],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.process.stdout.readline()
        if not line:
            fail("the relay stand-in did not start")
        self.url = json.loads(line)["url"]

    def control(self, path, body=None):
        return control_call(self.ca.context, self.url + "/_relay/" + path, body)

    def subscriptions(self):
        return self.control("state")["subscriptions"]

    def wait_for_subscription(self, count, timeout=60):
        """Waits for the `count`-th subscription since the start; returns it."""
        answer = self.control(f"subscriptions/wait?count={count}&timeout={timeout}")
        if answer["timed_out"]:
            fail(f"the relay got {len(answer['subscriptions'])} subscriptions, not {count}, within {timeout} s")
        return answer["subscriptions"][count - 1]

    def wait_for_stream_of(self, topics, timeout=60):
        """Waits until one stream is open and the latest subscription lists exactly `topics` (a
        daemon reopens its stream as its accounts register); returns how many subscriptions came."""
        deadline = time.monotonic() + timeout
        while True:
            state = self.control("state")
            latest = state["subscriptions"][-1:] or [{"topics": []}]
            if state["open_streams"] == 1 and sorted(latest[0]["topics"]) == sorted(topics):
                return len(state["subscriptions"])
            if time.monotonic() > deadline:
                fail(f"no relay stream listed the {len(topics)} accounts' topics within {timeout} s")
            time.sleep(0.05)

    def wait_for_open_streams(self, count, timeout=60):
        if self.control(f"streams/wait?open={count}&timeout={timeout}")["timed_out"]:
            fail(f"the relay did not have {count} open streams within {timeout} s")

    def stop(self):
        self.process.terminate()
        self.process.wait()


class SystemBus:
    """A private system bus with logind and NetworkManager on it (online), which every gbnotifyd
    of the run follows, as on a desktop; `laptop` makes them suspend, resume, go offline."""

    OFFLINE = [{"state": 30}, {"state": 20, "connectivity": 1}]
    ONLINE = [{"state": 40}, {"state": 70, "connectivity": 4}]

    def __init__(self):
        self.process = subprocess.Popen([PYTHON, SYSTEM_BUS], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.process.stdout.readline()
        if not line:
            fail("the system bus stand-in did not start (it needs python3-gi)")
        self.url = json.loads(line)["url"]
        self.address = self.control("state")["address"]

    def control(self, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        with urllib.request.urlopen(urllib.request.Request(self.url + "/_system/" + path, data=data), timeout=120) as answer:
            return json.loads(answer.read())

    def stop(self):
        self.process.terminate()
        self.process.wait()


# --- the keyring ------------------------------------------------------------------------------------

def use_accounts(standin, accounts):
    """Exactly these (instance URL, user) accounts in the session's keyring, with the stand-in's
    tokens."""
    subprocess.run(["secret-tool", "clear", "xdg:schema", SCHEMA], check=False)
    for url, user in accounts:
        subprocess.run(
            ["secret-tool", "store", f"--label=gitbay {user}", "xdg:schema", SCHEMA, "instance", url, "user", user],
            input=standin.tokens[user], text=True, check=True)


# --- the session bus: counting Notify calls ---------------------------------------------------------

class NotifyCounter:
    """A dbus-monitor that counts `Notify` method calls on the session bus."""

    def __init__(self):
        self.process = subprocess.Popen(
            ["dbus-monitor", "--session",
             "type='method_call',interface='org.freedesktop.Notifications',member='Notify'"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.count = 0
        self.ready = threading.Event()
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()
        # A monitor is told it lost its unique name once it is one: from then on it sees all.
        if not self.ready.wait(30):
            fail("dbus-monitor did not start")

    def _read(self):
        for line in self.process.stdout:
            if "member=NameLost" in line:
                self.ready.set()
            elif line.startswith("method call") and "member=Notify" in line:
                with self.lock:
                    self.count += 1

    def value(self):
        with self.lock:
            return self.count

    def stop(self):
        self.process.terminate()
        self.process.wait()


# --- the daemon -----------------------------------------------------------------------------------

class Daemon:
    """A release gbnotifyd with a config, state and readiness socket of its own, trusting the run's
    CA and following the stand-in system bus."""

    def __init__(self, binary, poll_interval, ca, system_bus, verbose=False, config="", bundle=False, path=None):
        """`bundle`: trust the run's CA with the system's through `ca-file = trust_file`, as a
        build from before `SystemTrust` must (it reads no SSL_CERT_DIR). `path`: a directory put
        first on its PATH (`soak`'s `xdg-open`)."""
        self.home = tempfile.mkdtemp(prefix="gbnotify-bench-")
        os.makedirs(os.path.join(self.home, "config", "gbnotifyd"))
        with open(os.path.join(self.home, "config", "gbnotifyd", "config"), "w") as file:
            trust = f"ca-file = {ca.trust_file}\n" if bundle else ""
            file.write(f"poll-interval = {poll_interval}\n{trust}{config}")
        self.readiness = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.readiness.bind(os.path.join(self.home, "notify"))
        self.readiness.settimeout(60)
        environment = dict(os.environ)
        environment.update(
            XDG_CONFIG_HOME=os.path.join(self.home, "config"), XDG_STATE_HOME=os.path.join(self.home, "state"),
            NOTIFY_SOCKET=os.path.join(self.home, "notify"), DBUS_SYSTEM_BUS_ADDRESS=system_bus.address,
            SSL_CERT_DIR=ca.trust_directory)
        if path:
            environment["PATH"] = path + os.pathsep + environment["PATH"]
        self.environment = environment
        self.lines = []
        self.arrived = threading.Condition()
        self.started = time.monotonic()
        self.process = subprocess.Popen(
            [binary] + (["--verbose"] if verbose else []), env=environment,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        threading.Thread(target=self._read, daemon=True).start()
        message = self.readiness.recv(4096).decode()
        self.ready_seconds = time.monotonic() - self.started
        if not message.startswith("READY=1"):
            fail(f"gbnotifyd said {message!r} instead of READY=1")
        self.pid = self.process.pid

    def _read(self):
        for line in self.process.stderr:
            with self.arrived:
                self.lines.append((time.monotonic(), line.rstrip("\n")))
                self.arrived.notify_all()

    def log(self):
        """The daemon's log lines so far, each with the moment it was read."""
        with self.arrived:
            return list(self.lines)

    def count_lines(self, text):
        with self.arrived:
            return sum(1 for _, line in self.lines if text in line)

    def wait_for_line(self, text, occurrence, timeout=30):
        """The moment the `occurrence`-th line containing `text` was read."""
        with self.arrived:
            matching = lambda: [moment for moment, line in self.lines if text in line]
            if not self.arrived.wait_for(lambda: len(matching()) >= occurrence, timeout):
                fail(f"gbnotifyd logged no line {occurrence} with {text!r} within {timeout} s")
            return matching()[occurrence - 1]

    def saved_accounts(self):
        """Each account's persisted record, by account id (`user@instance`)."""
        try:
            with open(os.path.join(self.home, "state", "gbnotifyd", "accounts.json")) as file:
                return json.load(file)["accounts"]
        except (FileNotFoundError, json.JSONDecodeError):
            return {}

    def wait_for_marks(self, marks, timeout=120):
        """Waits until every account in `marks` (account id -> id) has saved that high-water mark."""
        deadline = time.monotonic() + timeout
        while True:
            saved = self.saved_accounts()
            # A record without a mark is a registration whose first poll is not saved yet.
            mark = lambda account: saved.get(account, {}).get("highWater")
            missing = [account for account, wanted in marks.items() if mark(account) is None or mark(account) < wanted]
            if not missing:
                return
            if time.monotonic() > deadline:
                fail(f"gbnotifyd did not save the marks of {missing[:5]} within {timeout} s")
            time.sleep(0.02)

    def topic(self, account):
        """The account's relay topic: its device token, as `gbnotifyctl account list --json` shows it."""
        return self.saved_accounts()[account]["deviceToken"]

    def memory(self):
        return memory(self.pid)

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=30)
        self.readiness.close()
        shutil.rmtree(self.home, ignore_errors=True)


def account_id(url, user):
    return f"{user}@{url}"


def memory(pid):
    """VmRSS (`rss`), Pss, Private_Clean, Private_Dirty and private (the two) of a process, in KiB."""
    values = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                values["rss"] = int(line.split()[1])
    with open(f"/proc/{pid}/smaps_rollup") as rollup:
        for line in rollup:
            name, _, rest = line.partition(":")
            if name in ("Pss", "Private_Clean", "Private_Dirty"):
                values[name] = int(rest.split()[0])
    values["private"] = values["Private_Clean"] + values["Private_Dirty"]
    return values


def reaped_cpu_ms(pid):
    """The CPU time of a process's children it has waited for (cutime + cstime), in ms."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rpartition(")")[2].split()
    return (int(fields[13]) + int(fields[14])) * 1000 / os.sysconf("SC_CLK_TCK")


def open_files(pid):
    """How many file descriptors a process holds open."""
    return len(os.listdir(f"/proc/{pid}/fd"))


def established(pid, port):
    """How many established TCP connections a process holds to `port` (`ss`, iproute2)."""
    answer = subprocess.run(["ss", "-tnpH", "state", "established", f"( dport = :{port} )"],
                            capture_output=True, text=True, check=True)
    return sum(1 for line in answer.stdout.splitlines() if f"pid={pid}," in line)


def thread_names(pid):
    """The names of a process's threads (`/proc/PID/task/*/comm`), sorted."""
    names = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/comm") as comm:
            names.append(comm.read().strip())
    return sorted(names)


def median_memory(samples):
    return {key: median([sample[key] for sample in samples]) for key in samples[0]}


class PerfWindow:
    """CPU time and context switches of a process between `start()` and `stop()`."""

    def __init__(self, pid):
        self.control_read, self.control_write = os.pipe()
        self.ack_read, self.ack_write = os.pipe()
        self.process = subprocess.Popen(
            ["perf", "stat", "-x,", "-e", "task-clock,context-switches", "--delay=-1",
             f"--control=fd:{self.control_read},{self.ack_write}", "-p", str(pid)],
            pass_fds=(self.control_read, self.ack_write), stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, text=True)
        os.close(self.control_read)
        os.close(self.ack_write)

    def _command(self, word):
        os.write(self.control_write, f"{word}\n".encode())
        answer = b""
        while b"ack\n" not in answer:
            chunk = os.read(self.ack_read, 64)
            if not chunk:
                fail(f"perf stat ended before acknowledging {word!r}: {self.process.stderr.read()}")
            answer += chunk

    def start(self):
        self._command("enable")
        self.started = time.monotonic()

    def stop(self):
        self._command("disable")
        self.seconds = time.monotonic() - self.started
        self.process.send_signal(signal.SIGINT)
        _, errors = self.process.communicate(timeout=30)
        os.close(self.control_write)
        os.close(self.ack_read)
        counts = {}
        for line in errors.splitlines():
            fields = line.split(",")
            if len(fields) > 2 and fields[2] in ("task-clock", "context-switches"):
                # "<not counted>": the process did not run at all in the window.
                counts[fields[2]] = 0.0 if fields[0].startswith("<") else float(fields[0])
        if len(counts) != 2:
            fail(f"perf stat gave no counts: {errors}")
        self.cpu_ms = counts["task-clock"]
        self.switches = int(counts["context-switches"])
        return self

    def figures(self):
        return {"cpu_ms": self.cpu_ms, "switches": self.switches, "seconds": self.seconds}


def measured(pid, work):
    window = PerfWindow(pid)
    window.start()
    work()
    return window.stop()


# --- the baseline ---------------------------------------------------------------------------------

class Baseline:
    def __init__(self, ca, accounts, interval, cycles=0):
        """baseline.sh over `accounts` ((instance URL, user) pairs, in the keyring already)."""
        self.file = tempfile.NamedTemporaryFile("w", prefix="baseline-accounts-", delete=False)
        for url, user in accounts:
            self.file.write(f"{url} {user}\n")
        self.file.close()
        environment = dict(os.environ, INTERVAL=str(interval), CYCLES=str(cycles), CA_FILE=ca.trust_file)
        self.usage_before = resource_children()
        self.process = subprocess.Popen(
            [BASELINE, self.file.name], env=environment, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)

    def finish(self):
        """Waits for a run with CYCLES to end; returns (CPU ms, context switches) of it all."""
        _, errors = self.process.communicate(timeout=600)
        if self.process.returncode != 0:
            fail(f"baseline.sh failed ({self.process.returncode}): {errors}")
        return self._usage()

    def kill(self):
        os.killpg(self.process.pid, signal.SIGTERM)
        self.process.wait()
        return self._usage()

    def _usage(self):
        after = resource_children()
        os.unlink(self.file.name)
        return ((after[0] - self.usage_before[0]) * 1000, after[1] - self.usage_before[1])


def resource_children():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime, usage.ru_nvcsw + usage.ru_nivcsw


# --- scenarios ----------------------------------------------------------------------------------

class Bench:
    def __init__(self, arguments):
        self.arguments = arguments
        self.daemon_binary = os.path.join(arguments.bin, "gbnotifyd")
        self.bench_binary = os.path.join(arguments.bin, "gbnotify-bench")
        self.ca = RunCA()
        self.system_bus = SystemBus()
        self.standin = Standin(self.ca, USERS)
        self.notifies = NotifyCounter()
        self.many_standin = None
        self.results = {}

    def log(self, message):
        print(f"bench: {message}", file=sys.stderr, flush=True)

    def many(self, count):
        """`count` accounts of users of their own, account n on instance n mod 10 of a stand-in on
        10 loopback addresses (made at its first use), with the stand-in."""
        if self.many_standin is None:
            self.many_standin = Standin(self.ca, MANY_USERS, hosts=MANY_HOSTS)
        urls = self.many_standin.urls
        return self.many_standin, [(urls[n % len(urls)], MANY_USERS[n]) for n in range(count)]

    def accounts(self, users, standin=None):
        """(instance URL, user) of each of `users` on `standin` (the run's main stand-in)."""
        return [((standin or self.standin).url, user) for user in users]

    def daemon(self, accounts, poll_interval, standin=None, verbose=False, config="", binary=None, path=None):
        """A daemon over `accounts` ((instance URL, user) pairs), returned once each account's first
        poll is saved. Their inboxes are read first, so that the first poll shows nothing: a
        notification left on screen would expire during a window, and the daemon hear of it."""
        standin = standin or self.standin
        for user in {user for _, user in accounts}:
            standin.control("notifications/mark-read", {"username": user, "all": True})
        use_accounts(standin, accounts)
        standin.clear()
        daemon = Daemon(binary or self.daemon_binary, poll_interval, self.ca, self.system_bus, verbose, config,
                        bundle=binary not in (None, self.daemon_binary), path=path)
        daemon.wait_for_marks({account_id(url, user): 0 for url, user in accounts})
        return daemon

    # 100 rules against 1,000 notices: the CPU the desktop stage spends deciding what pops up.
    def rules(self):
        answer = subprocess.run([self.bench_binary, "rules", "20"], capture_output=True, text=True, check=True)
        costs = json.loads(answer.stdout)
        self.results["rules"], self.results["rules_without"] = costs["microseconds"], costs["without"]
        self.log(f"100 rules x 1,000 notices: {median(self.results['rules']) / 1000:.3f} ms CPU")

    # The floor under showing anything on dunst: a bare `Notify`, and one notify-send.
    def notify(self):
        count = self.arguments.notices
        runs = []
        for _ in range(self.arguments.repeat):
            answer = subprocess.run([self.bench_binary, "notify", str(count)], capture_output=True, text=True, check=True)
            runs.append(json.loads(answer.stdout)["microseconds"])
        self.results["notify"] = runs
        baseline = []
        for index in range(count // 5):
            started = time.monotonic()
            subprocess.run(["notify-send", "-a", "gitbay", "krz/gitbay", f"eve opened issue #{index}"], check=True)
            baseline.append((time.monotonic() - started) * 1e6)
            clear_screen()
        self.results["notify_send"] = baseline
        self.log(f"Notify p50 {median(runs[0]):.0f} us; notify-send p50 {median(baseline):.0f} us")

    # The terminal view's layout of hostile bodies: CPU work in one process, nothing on the bus.
    def layout(self):
        answer = subprocess.run([self.bench_binary, "layout", "20"], capture_output=True, text=True, check=True)
        self.results["layout"] = json.loads(answer.stdout)
        self.log("layout p50: " + ", ".join(f"{name} {median(times) / 1000:.1f} ms" for name, times in self.results["layout"].items()))

    # The worst input we could build for each pure function the loop runs on outside text, at
    # its size limit (issue 44): CPU work in one process, nothing on the bus.
    def worst(self):
        answer = subprocess.run([self.bench_binary, "worst", "10"], capture_output=True, text=True, check=True)
        self.results["worst"] = json.loads(answer.stdout)
        self.log("worst cases, max: " + ", ".join(f"{name} {max(times) / 1000:.1f} ms" for name, times in self.results["worst"].items()))

    # Start to ready, and memory at start.
    def start(self):
        use_accounts(self.standin, self.accounts(USERS[:10]))
        ready, at_start, floor = [], [], []
        for _ in range(self.arguments.repeat * 3):
            daemon = Daemon(self.daemon_binary, 30, self.ca, self.system_bus)
            ready.append(daemon.ready_seconds * 1000)
            at_start.append(daemon.memory())
            daemon.stop()
        # The floor under that memory: the same build's runtime and libraries doing next to nothing.
        for _ in range(self.arguments.repeat):
            process = subprocess.Popen([self.bench_binary, "floor", self.standin.url + "/_standin/state", self.ca.trust_directory],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            if not json.loads(process.stdout.readline() or "{}").get("ready"):
                fail("gbnotify-bench floor did not start")
            floor.append(memory(process.pid))
            process.stdin.close()
            if process.wait(timeout=30) != 0:
                fail(f"gbnotify-bench floor failed ({process.returncode})")
        self.results["start"] = {"ready_ms": ready, "memory": at_start, "floor_memory": floor}
        self.log(f"start to ready: {median(ready):.1f} ms")

    # Idle with 10 accounts: the default interval, and between polls.
    def tray(self):
        """The tray item's Private_Dirty, on against off, in one process (gbnotify-tray-bench): the
        objects exported, the icon rendered, 50 counts drawn and 50 asked for by gdbus as a host, then
        1.5 s for the daemon to settle (it gives the heap's free pages back a second after a host's question)."""
        runs = []
        for _ in range(self.arguments.repeat):
            output = subprocess.run(
                [os.path.join(self.arguments.bin, "gbnotify-tray-bench"), os.path.join(ROOT, "packaging/gbnotify.svg"),
                 os.path.join(self.arguments.bin, "gbnotifyctl")],
                check=True, capture_output=True, text=True).stdout
            runs.append(json.loads(output))
        self.results["tray"] = runs

    def tray_cpu(self):
        """CPU per notice with the tray off and on, a host asking for each new icon at once (as
        Plasma's and Xfce's trays do; desktop_standins.py's watcher): 10 accounts at 10 s, rounds of
        one new notice on each. The daemon's CPU by perf, and that of what it started and reaped
        meanwhile (each count drawn by `gbnotifyctl draw-tray-icon`) from /proc/PID/stat."""
        users = USERS[:10]
        accounts = self.accounts(users)
        host = DesktopStandins(tray=True)
        host.wait_until_serving()
        marks = lambda: {account_id(self.standin.url, user): mark for user, mark in self.standin.newest_ids(users).items()}
        runs = {}
        for key, mode in (("off", "off"), ("on", "auto")):
            daemon = self.daemon(accounts, 10, config=f"tray = {mode}\n")
            icons = host.count("icon")
            shown = self.notifies.value()
            children = reaped_cpu_ms(daemon.pid)

            def rounds():
                for _ in range(TRAY_ROUNDS):
                    self.standin.add_notices(users, 1)
                    daemon.wait_for_marks(marks())
                time.sleep(1)  # the last count drawn and fetched

            window = measured(daemon.pid, rounds)
            runs[key] = {"cpu_ms": window.cpu_ms, "children_ms": reaped_cpu_ms(daemon.pid) - children,
                         "notices": TRAY_ROUNDS * len(users), "icons": host.count("icon") - icons,
                         "notifications": self.notifies.value() - shown, "memory": daemon.memory()}
            daemon.stop()
            clear_screen()
            self.log(f"tray {key}: {runs[key]}")
        host.stop()
        self.results["tray_cpu"] = runs

    # `account add --ssh` against the loopback sshd, beside the token on standard input.
    def ssh_add(self):
        result = ssh_mint.measure(self.arguments.bin, self.standin, self.ca, self.arguments.repeat * 3)
        self.results["ssh_add"] = result
        self.log(f"account add: {ssh_mint.summary(result)}")

    def idle(self):
        """Idle with 10 accounts at the default interval, and between polls; at the default interval
        also the build before the one loop (`--before`), in turn with this one, for issue 22's
        threads, context switches per 304 poll and memory."""
        users = USERS[:10]
        seconds = self.arguments.idle_seconds
        windows = [(30, "idle_30", self.daemon_binary), (3600, "idle_between", self.daemon_binary)]
        if self.arguments.before:
            windows.insert(1, (30, "idle_30_before", os.path.join(self.arguments.before, "gbnotifyd")))
        for interval, key, binary in windows:
            runs = []
            for _ in range(self.arguments.repeat):
                daemon = self.daemon(self.accounts(users), interval, binary=binary)
                self.standin.clear()
                window = measured(daemon.pid, lambda: time.sleep(seconds))
                runs.append({**window.figures(), "polls": len(self.standin.list_requests()),
                             "handshakes": len(self.standin.handshakes()), "memory": daemon.memory(),
                             "threads": thread_names(daemon.pid)})
                daemon.stop()
            self.results[key] = runs
            self.log(f"idle {key}: {runs}")
        # The baseline at the default interval: the rounds that fit in the same time, after a
        # first round (its start-up), less that round.
        rounds = max(1, round(seconds / 30))
        runs = []
        for _ in range(self.arguments.repeat):
            first = Baseline(self.ca, self.accounts(users), 30, cycles=1).finish()
            cpu_ms, switches = Baseline(self.ca, self.accounts(users), 30, cycles=1 + rounds).finish()
            runs.append({"cpu_ms": cpu_ms - first[0], "switches": switches - first[1], "polls": 10 * rounds})
        self.results["idle_baseline"] = runs
        self.log(f"idle baseline: {runs}")

    # TLS: one account on each of 5 instances, against servers that keep connections, close
    # idle ones after 5 s, or close them and never resume a session.
    def tls(self):
        users = USERS[:len(INSTANCE_HOSTS)]
        runs = {}
        for key, interval, idle_close, resumption in (("kept", 30, None, True), ("closed", 10, 5, True),
                                                      ("closed_full", 10, 5, False)):
            seconds = interval * self.arguments.tls_polls
            standin = Standin(self.ca, users, hosts=INSTANCE_HOSTS, idle_close=idle_close, resumption=resumption)
            accounts = list(zip(standin.urls, users))
            daemon = self.daemon(accounts, interval, standin=standin)
            standin.clear()
            window = measured(daemon.pid, lambda: time.sleep(seconds))
            handshakes = standin.handshakes()
            runs[key] = {**window.figures(), "interval": interval, "polls": len(standin.list_requests()),
                         "handshakes": len(handshakes), "resumed": sum(1 for h in handshakes if h["resumed"]),
                         "accounts": len(accounts)}
            daemon.stop()
            standin.stop()
            self.log(f"tls {key}: {runs[key]}")
        self.results["tls"] = runs

    # CPU per 304 poll, requests per account per minute and poll spacing, with 100 accounts.
    def hundred(self):
        users = USERS
        seconds = self.arguments.hundred_seconds
        daemon = self.daemon(self.accounts(users), 10)
        self.standin.clear()
        window = measured(daemon.pid, lambda: time.sleep(seconds))
        requests = self.standin.requests()
        self.results["hundred"] = {
            **window.figures(), "handshakes": len(self.standin.handshakes()),
            "requests": summarise_requests(requests, users, window.seconds), "memory": daemon.memory()}
        daemon.stop()
        self.log(f"100 accounts: {self.results['hundred']['cpu_ms']:.1f} ms CPU")

        use_accounts(self.standin, self.accounts(users))
        self.standin.clear()
        baseline = Baseline(self.ca, self.accounts(users), 10)
        started = time.monotonic()
        time.sleep(seconds)
        self.results["baseline_memory"] = memory(baseline.process.pid)
        baseline.kill()
        self.results["hundred_baseline"] = {
            "requests": summarise_requests(self.standin.requests(), users, time.monotonic() - started)}

    # How the cost grows with the work: 1, 10, 100 and 1,000 accounts over 10 instances, through
    # nghttpx offering HTTP/2, and beside it offering only HTTP/1.1.
    def growth(self):
        """For each protocol nghttpx offers (GROWTH_PROTOCOLS) and each count: start to every
        account polled (the stand-in's first list request of each, from the moment the daemon was
        started) and the TLS handshakes until then, then a window at the default 30 s: CPU per 304
        poll, memory, threads and open files. Beside the HTTP/1.1 runs the baseline's loop over the
        same accounts: CPU per poll from whole rounds back to back less one round, its first
        round's length (what its interval cannot be shorter than) and its bash's memory."""
        results, one_instance = {}, {}
        for protocol, alpn in GROWTH_PROTOCOLS.items():
            users = MANY_USERS[:max(max(self.arguments.growth_counts), ONE_INSTANCE_ACCOUNTS)]
            standin = FrontedStandin(self.ca, users, MANY_HOSTS, alpn)
            results[protocol] = self.growth_through(standin, baseline=protocol == "HTTP/1.1")
            one_instance[protocol] = self.one_instance(standin)
            standin.stop()
        self.results["growth"] = results
        self.results["one_instance"] = one_instance

    def one_instance(self, standin):
        """ONE_INSTANCE_ACCOUNTS accounts on one instance behind the front, at the shortest interval
        (10 s), once every account has polled: a window of --idle-seconds with the connections that
        carried its requests (nghttpx's access log), those the daemon holds to the front at its end
        (`ss`), each account's polls per interval and the gaps between two of its polls."""
        users = MANY_USERS[:ONE_INSTANCE_ACCOUNTS]
        daemon = self.daemon([(standin.urls[0], user) for user in users], 10, standin=standin)
        start_connections = len(standin.handshakes())
        standin.clear()
        window = measured(daemon.pid, lambda: time.sleep(self.arguments.idle_seconds))
        requests = summarise_requests(standin.requests(), users, window.seconds)
        result = {**window.figures(), "start_connections": start_connections,
                  "connections": len(standin.handshakes()), "held": established(daemon.pid, standin.port),
                  "requests": requests, "per_interval": requests["polls"] / len(users) / (window.seconds / 10),
                  "memory": daemon.memory()}
        daemon.stop()
        self.log(f"one instance: {result}")
        return result

    def growth_through(self, standin, baseline):
        results = {}
        for count in self.arguments.growth_counts:
            accounts = [(standin.urls[n % len(standin.urls)], MANY_USERS[n]) for n in range(count)]
            daemon = self.daemon(accounts, 30, standin=standin)
            firsts = {}
            for request in standin.list_requests():
                firsts.setdefault(request["username"], request["time"])
            all_polled = max(firsts.values()) - daemon.started
            start_handshakes = len(standin.handshakes())
            # Windows back to back, each its CPU per 304 poll: one window is too few to tell two
            # figures within a few per cent apart from noise on a shared machine.
            windows = []
            for _ in range(self.arguments.growth_windows):
                standin.clear()
                window = measured(daemon.pid, lambda: time.sleep(self.arguments.idle_seconds))
                statuses = [r["status"] for r in standin.list_requests()]
                windows.append({**window.figures(), "polls": len(statuses), "not_modified": statuses.count(304)})
            window_costs = [w["cpu_ms"] / max(w["polls"], 1) for w in windows]
            results[count] = {**windows[0], "cpu_ms": sum(w["cpu_ms"] for w in windows),
                              "polls": sum(w["polls"] for w in windows),
                              "not_modified": sum(w["not_modified"] for w in windows), "window_costs": window_costs,
                              "all_polled": all_polled, "ready": daemon.ready_seconds, "polled": len(firsts),
                              "start_handshakes": start_handshakes,
                              "memory": daemon.memory(),
                              "threads": len(thread_names(daemon.pid)), "files": open_files(daemon.pid)}
            daemon.stop()
            self.log(f"growth {count}: {results[count]}")
            if baseline and count <= 100:
                standin.clear()
                one = Baseline(self.ca, accounts, 0, cycles=1)
                first_round = one.finish()
                # The first round alone, timed: each account's first request to the last one's.
                times = [r["time"] for r in standin.list_requests()]
                standin.clear()
                cpu_ms, switches = Baseline(self.ca, accounts, 0, cycles=3).finish()
                # Its bash's memory, a second into a loop at the default interval.
                looping = Baseline(self.ca, accounts, 30)
                time.sleep(1)
                bash = memory(looping.process.pid)
                looping.kill()
                results[count]["baseline"] = {
                    "cpu_ms": cpu_ms - first_round[0], "polls": 2 * count, "memory": bash,
                    "round_seconds": max(times) - min(times) if times else 0.0}
                self.log(f"growth baseline {count}: {results[count]['baseline']}")
        return results

    # CPU per 304 poll of the baseline: whole rounds, less one round; its handshakes.
    def baseline_polls(self):
        users = USERS[:10]
        use_accounts(self.standin, self.accounts(users))
        one = Baseline(self.ca, self.accounts(users), 0, cycles=1).finish()
        self.standin.clear()
        many = Baseline(self.ca, self.accounts(users), 0, cycles=7).finish()
        self.results["poll_baseline"] = {"cpu_ms": many[0] - one[0], "switches": many[1] - one[1], "polls": 60,
                                         "handshakes_per_poll": len(self.standin.handshakes())
                                         / len(self.standin.list_requests())}

    # A poll that finds one new notice, then 1,000 new notices in one round, ten times.
    def bursts(self):
        users = USERS[:10]
        accounts = self.accounts(users)
        daemon = self.daemon(accounts, 10)
        rounds = self.arguments.repeat * 2
        first_notify = self.notifies.value()
        marks = lambda: {account_id(self.standin.url, user): mark for user, mark in self.standin.newest_ids(users).items()}

        def one_new_rounds():
            for _ in range(rounds):
                self.standin.add_notices(users, 1)
                daemon.wait_for_marks(marks())

        self.standin.clear()
        window = measured(daemon.pid, one_new_rounds)
        statuses = [r["status"] for r in self.standin.list_requests()]
        self.results["one_new"] = {
            "cpu_ms": window.cpu_ms, "switches": window.switches, "fresh": statuses.count(200),
            "not_modified": statuses.count(304), "notifications": self.notifies.value() - first_notify}

        cycles = []
        for _ in range(10):
            before = self.notifies.value()
            self.standin.clear()

            def burst():
                self.standin.add_notices(users, 100)
                daemon.wait_for_marks(marks())

            window = measured(daemon.pid, burst)
            cycles.append({"cpu_ms": window.cpu_ms, "notifications": self.notifies.value() - before,
                           "requests": len(self.standin.requests())})
        self.results["burst"] = cycles
        self.results["after_10000"] = daemon.memory()
        daemon.stop()
        self.log(f"1,000 in one round: {cycles}")

        # The baseline: one round to learn where each inbox stands, then rounds with new notices.
        use_accounts(self.standin, accounts)
        idle = Baseline(self.ca, self.accounts(users), 0, cycles=1).finish()
        for key, per_user, count in (("one_new_baseline", 1, 3), ("burst_baseline", 100, 1)):
            self.standin.clear()
            before = self.notifies.value()
            baseline = Baseline(self.ca, self.accounts(users), 2, cycles=1 + count)
            for round_number in range(1, count + 1):
                self.standin.wait_for_answered_lists(10 * round_number)
                self.standin.add_notices(users, per_user)
            cpu_ms, switches = baseline.finish()
            self.results[key] = {"cpu_ms": cpu_ms - idle[0], "switches": switches - idle[1], "rounds": count,
                                 "polls": 10 * count, "notifications": self.notifies.value() - before}
        self.log(f"baseline bursts: {self.results['one_new_baseline']} {self.results['burst_baseline']}")

    # Poll latency (request received by the stand-in to the daemon's line about the answer) by
    # the number of accounts.
    def latency(self):
        results = {}
        for count in (10, 100):
            daemon = self.daemon(self.accounts(USERS[:count]), 10, verbose=True)
            self.standin.clear()
            started = time.monotonic()
            time.sleep(self.arguments.latency_seconds)
            requests = self.standin.list_requests()
            lines = [entry for entry in daemon.log() if entry[0] >= started and ": 304 not modified" in entry[1]]
            daemon.stop()
            results[count] = match_latencies(requests, lines)
        self.results["latency"] = results
        self.log(f"poll latency: {results}")

    # Suspend and resume, the network going and coming back, and a minute offline.
    def laptop(self):
        users = USERS[:10]
        relay = Relay(self.ca)
        accounts = self.accounts(users)
        daemon = self.daemon(accounts, 3600, config=f"relay-url = {relay.url}\nrelay-poll-interval = 3600\n")
        subscriptions = relay.wait_for_stream_of([daemon.topic(account_id(*account)) for account in accounts])
        runs = {"resume": [], "network": []}
        offline = None
        for cycle in range(self.arguments.laptop_runs * 2):
            kind = "resume" if cycle % 2 == 0 else "network"
            # Every account's last poll more than the minimum wake-up gap (2 s) ago.
            time.sleep(2.5)
            if kind == "resume":
                sleep = self.system_bus.control("sleep", {})
                if sleep["timed_out"]:
                    fail("gbnotifyd did not let go of its sleep inhibitor")
                relay.wait_for_open_streams(0)
                time.sleep(1)
            else:
                self.system_bus.control("network", {"steps": SystemBus.OFFLINE})
                relay.wait_for_open_streams(0)
                time.sleep(2)  # what going offline set off (state written, the stream closed) is over
                if offline is None:
                    self.standin.clear()
                    window = measured(daemon.pid, lambda: time.sleep(self.arguments.idle_seconds))
                    offline = {**window.figures(), "requests": len(self.standin.requests())}
                else:
                    time.sleep(1)
            self.standin.clear()
            signalled = time.monotonic()
            if kind == "resume":
                self.system_bus.control("resume", {})
            else:
                self.system_bus.control("network", {"steps": SystemBus.ONLINE})
            subscriptions += 1
            relay.wait_for_subscription(subscriptions)
            reconnected = time.monotonic()
            polled = self.standin.wait_for_polls_of(set(users), signalled)
            runs[kind].append({"polled": max(polled.values()) - signalled, "relay": reconnected - signalled})
        daemon.stop()
        relay.stop()
        self.results["laptop"] = {**runs, "offline": offline}
        self.log(f"laptop: {self.results['laptop']}")

    # The peers idle with one IMAP account (Mailnag, gnubiff), beside gbnotifyd idle with one account.
    def peers(self):
        seconds = self.arguments.idle_seconds
        for key, peer_class in (("mailnag", peers.Mailnag), ("gnubiff", peers.GnuBiff)):
            peer = peer_class(self.ca)
            time.sleep(5)  # its first check done, its idlers waiting
            started = time.monotonic()
            window = measured(peer.pid, lambda: time.sleep(seconds))
            self.results[key] = {**window.figures(), "commands": peer.commands_since(started),
                                 "memory": memory(peer.pid), "version": peers.version(peer.PACKAGE)}
            peer.stop()
            self.log(f"{key}: {self.results[key]}")

        relay = Relay(self.ca)
        for key, config in (("one_polling", ""), ("one_relay", f"relay-url = {relay.url}\n")):
            accounts = self.accounts(USERS[:1])
            daemon = self.daemon(accounts, 30, config=config)
            if config:
                relay.wait_for_stream_of([daemon.topic(account_id(*accounts[0]))])
            time.sleep(5)
            self.standin.clear()
            window = measured(daemon.pid, lambda: time.sleep(seconds))
            self.results[key] = {**window.figures(), "polls": len(self.standin.list_requests()),
                                 "memory": daemon.memory()}
            daemon.stop()
            self.log(f"gbnotifyd {key}: {self.results[key]}")
        relay.stop()

    # The wake-up path, relay line or `Deliver` to `Notify` received by an instant notification
    # server, the account's poll included. Stops dunst, so it runs last.
    def wakeup(self):
        """The wake-up path of this build and, with `--before`, of the earlier one, in turn."""
        stop_notification_server()
        builds = [("", self.daemon_binary)]
        if self.arguments.before:
            builds.append(("_before", os.path.join(self.arguments.before, "gbnotifyd")))
        for run, (suffix, binary) in enumerate(builds):
            relay_times, deliver_times = self.wake_path(binary, numbers=10_000_000 * run)
            self.results["wake_relay" + suffix], self.results["wake_deliver" + suffix] = relay_times, deliver_times
            self.log(f"wake-ups{suffix}: relay → Notify p50 {median([t['total'] for t in relay_times]):.2f} ms; "
                     f"Deliver → Notify p50 {median([t['total'] for t in deliver_times]):.2f} ms")
        self.results["wake_poll_floor"] = self.poll_floor(USERS)

    # A busy day compressed: many cycles of everything the daemon does, memory sampled throughout.
    def soak(self):
        """`make soak`. SOAK_ACCOUNTS accounts over 10 instances, a relay, and the desktop_standins.py
        notification server (dunst stopped: it cannot be clicked from here), for `--soak-seconds`;
        events spread evenly over that time, the first `--soak-warm-up` of it a warm-up: the busy
        daemon's working set is made then, so that the samples after it show growth, not the step
        from an idle daemon to a busy one. Every notice is numbered, so what
        the server was sent can be checked against what was added."""
        seconds = self.arguments.soak_seconds
        stop_notification_server()
        standin, accounts = self.many(SOAK_ACCOUNTS)
        spare = [(standin.urls[0], user) for user in MANY_USERS[-5:]]
        for _, user in spare:
            standin.control("notifications/mark-read", {"username": user, "all": True})
        relay = Relay(self.ca)
        opener = tempfile.mkdtemp(prefix="gbnotify-soak-opener-")
        opened = os.path.join(opener, "opened")
        with open(os.path.join(opener, "xdg-open"), "w") as stub:
            stub.write(f'#!/bin/sh\necho "$1" >> {opened}\n')
        os.chmod(os.path.join(opener, "xdg-open"), 0o755)
        servers = [DesktopStandins(notifications=True, expire=SOAK_POPUP_SECONDS)]
        servers[0].wait_until_serving()
        bus_notifies = self.notifies.value()
        daemon = self.daemon(accounts, 10, standin=standin, path=opener,
                             config=f"relay-url = {relay.url}\nrelay-poll-interval = 30\n")
        relay.wait_for_stream_of([daemon.topic(account_id(*account)) for account in accounts])
        ctl = lambda *words: subprocess.run([os.path.join(self.arguments.bin, "gbnotifyctl"), *words],
                                            env=daemon.environment, capture_output=True, text=True, check=True)
        users = [user for _, user in accounts]
        standin.clear()

        # The day's events, each at its moment in [0, seconds); a shorter day (a trial run) has
        # fewer of each, in proportion.
        planned = {kind: max(1, round(count * seconds / SOAK_SECONDS)) for kind, count in SOAK_DAY.items()}
        plan = []
        for index, (kind, count) in enumerate(planned.items()):
            offset = (index + 0.5) / len(planned)  # kinds apart from one another
            plan += [(seconds * (n + offset) / count, kind) for n in range(count)]
        plan.sort()

        added = {}  # notice number -> user
        notice_ids = {}  # notice number -> its id on the stand-in
        added_at = {}  # notice number -> when it was added (CLOCK_MONOTONIC)
        snoozed = set()  # numbers added while a snooze held popups
        done = {kind: 0 for _, kind in plan}
        snooze_ends = []
        samples = []
        number = 0
        warm_up = self.arguments.soak_warm_up
        began = time.monotonic()
        next_sample = began + warm_up

        showing = {}  # what the current server shows: id -> the notice's number, None for a summary
        shown_numbers = []  # each single notice shown, newest last, for "read elsewhere"
        read_up_to = [0]  # the current server's events taken into `showing`

        def open_notifications():
            server = servers[-1]
            with server.changed:
                fresh = server.events[read_up_to[0]:]
                read_up_to[0] = len(server.events)
            for event in fresh:
                if event["event"] == "notify":
                    found = re.findall(r"#(\d+)", event["body"])
                    showing[event["id"]] = int(found[0]) if found else None
                    if found:
                        shown_numbers.append(int(found[0]))
                elif event["event"] in ("close", "clicked", "expired"):
                    showing.pop(event["id"], None)
            return showing

        def sample():
            pid = daemon.pid
            samples.append({"t": time.monotonic() - began, "memory": memory(pid), "files": open_files(pid),
                            "threads": len(thread_names(pid))})
            self.log(f"soak at {samples[-1]['t']:.0f} s: {samples[-1]}; done {done}; "
                     f"{servers[-1].count('notify')} Notify on the current server, {len(open_notifications())} showing")

        while plan or snooze_ends:
            now = time.monotonic() - began
            if now + began >= next_sample:
                sample()
                next_sample += SOAK_SAMPLE_SECONDS
            if snooze_ends and snooze_ends[0][0] <= now:
                ctl("snooze", "off", "--account", snooze_ends.pop(0)[1])
                continue
            if not plan:
                time.sleep(0.05)
                continue
            at, kind = plan[0]
            if at > now:
                time.sleep(min(0.05, at - now))
                continue
            plan.pop(0)
            done[kind] += 1
            if kind == "notice":
                number += 1
                user = users[number % len(users)]
                added_at[number] = time.monotonic()
                notice_ids[number] = standin.add_numbered_notice(user, number)
                added[number] = user
                if any(user == account.split("@")[0] for _, account in snooze_ends):
                    snoozed.add(number)
            elif kind == "withdraw":
                # The newest notice shown, read on the instance: withdrawn after the next poll.
                open_notifications()
                if not shown_numbers:
                    done[kind] -= 1
                    continue
                notice = shown_numbers.pop()
                standin.control("notifications/mark-read", {"username": added[notice], "ids": [notice_ids[notice]]})
            elif kind in ("click", "mark_read"):
                if not open_notifications():
                    # Nothing on screen: again a moment later, within the day.
                    done[kind] -= 1
                    if at + 0.05 < seconds:
                        plan.append((at + 0.05, kind))
                        plan.sort()
                    continue
                notification = min(showing)  # the oldest: its `Notify` has surely been answered
                del showing[notification]
                servers[-1].command(f"click {notification} {SOAK_CLICKS[kind]}")
            elif kind == "network":
                self.system_bus.control("network", {"steps": SystemBus.OFFLINE})
                time.sleep(0.5)
                self.system_bus.control("network", {"steps": SystemBus.ONLINE})
            elif kind == "relay_drop":
                relay.control("faults", {"kind": "drop"})
            elif kind == "keyring":
                # A spare account (its inbox read) stored, then cleared again: two changes.
                url, user = spare[(done[kind] - 1) // 2 % len(spare)]
                if done[kind] % 2:
                    subprocess.run(["secret-tool", "store", f"--label=gitbay {user}", "xdg:schema", SCHEMA,
                                    "instance", url, "user", user], input=standin.tokens[user], text=True, check=True)
                else:
                    subprocess.run(["secret-tool", "clear", "xdg:schema", SCHEMA, "instance", url, "user", user],
                                   check=True)
            elif kind == "reload":
                daemon.process.send_signal(signal.SIGHUP)
            elif kind == "server_restart":
                servers.append(DesktopStandins(notifications=True, expire=SOAK_POPUP_SECONDS))
                servers[-2].stop()
                servers[-1].wait_until_serving()
                showing.clear()
                read_up_to[0] = 0
            elif kind == "suspend":
                self.system_bus.control("sleep", {})
                time.sleep(1)
                self.system_bus.control("resume", {})
            elif kind == "snooze":
                # The account whose turn for a notice comes next, so that the snooze holds some.
                url, user = accounts[(number + 1) % len(accounts)]
                snoozed_account = f"{user}@{url.split('://')[1]}"
                ctl("snooze", "1m", "--account", snoozed_account)
                snooze_ends.append((now + SOAK_SNOOZE_SECONDS, snoozed_account))
        sample()
        time.sleep(SOAK_SETTLE_SECONDS)  # the last notices polled and shown
        sample()
        requests = standin.requests()
        subscriptions = len(relay.control("state")["subscriptions"])
        bus_notifies = self.notifies.value() - bus_notifies
        daemon.stop()
        events = [event for server in servers[:-1] for event in server.events] + servers[-1].stop()
        relay.stop()
        opens = open(opened).read().splitlines() if os.path.exists(opened) else []
        shutil.rmtree(opener, ignore_errors=True)
        use_accounts(standin, [])

        # Every notice shown exactly once: one by one (its number in one body), or else counted in
        # a summary of its account sent after it came ("N new", "N new ... while snoozed", or
        # "N more unread" that it joined), never twice.
        seen, summaries = {}, {}
        for event in events:
            if event["event"] != "notify":
                continue
            for found in set(re.findall(r"#(\d+)", event["body"])):
                seen[int(found)] = seen.get(int(found), 0) + 1
            summary = re.match(r"\d+\+? (?:new|more unread|unread) on \S+ as (\S+)", event["summary"])
            if summary:
                summaries.setdefault(summary.group(1), []).append(event["t"])
        once = sum(1 for notice in added if seen.get(notice) == 1)
        twice = [notice for notice in added if seen.get(notice, 0) > 1]
        unseen = [notice for notice in added if notice not in seen]
        summarised = [notice for notice in unseen if any(t > added_at[notice] for t in summaries.get(added[notice], []))]
        lists = [r for r in requests if r["query_argv"] == ["notifications", "list"]]
        self.results["soak"] = {
            "seconds": seconds, "warm_up": warm_up, "accounts": len(accounts), "samples": samples, "done": done,
            "planned": planned,
            "polls": len(lists), "relay_subscriptions": subscriptions, "notices": len(added), "shown_once": once,
            "shown_twice": twice, "not_shown_alone": len(unseen), "summarised": len(summarised),
            "never_shown": sorted(set(unseen) - set(summarised)), "snoozed": len(snoozed),
            "snoozed_alone": sum(1 for notice in snoozed if notice in seen),
            "replaced": sum(1 for e in events if e["event"] == "notify" and e["replaces"]),
            "withdrawn": sum(1 for e in events if e["event"] == "close"),
            "expired": sum(1 for e in events if e["event"] == "expired"),
            "clicked": {kind: sum(1 for e in events if e["event"] == "clicked" and e["action"] == action)
                        for kind, action in SOAK_CLICKS.items()},
            "missed": {kind: sum(1 for e in events if e["event"] == "click-missed" and e["action"] == action)
                       for kind, action in SOAK_CLICKS.items()},
            "opened": len(opens),
            "server_notifies": sum(1 for e in events if e["event"] == "notify"), "bus_notifies": bus_notifies}
        self.log(f"soak: { {k: v for k, v in self.results['soak'].items() if k != 'samples'} }")

    def wake_path(self, binary, numbers):
        """(relay line → `Notify`, `Deliver` → `Notify`) timings of one build; its notices are
        numbered from `numbers` on."""
        server = InstantServer(self.bench_binary)
        relay = Relay(self.ca)
        users = USERS
        accounts = self.accounts(users)
        daemon = self.daemon(accounts, 3600, config=f"relay-url = {relay.url}\nrelay-poll-interval = 3600\n", binary=binary)
        topics = {user: daemon.topic(account_id(url, user)) for url, user in accounts}
        relay.wait_for_stream_of(list(topics.values()))
        deliverer = subprocess.Popen([self.bench_binary, "deliver"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        last_wake = {user: time.monotonic() for user in users}
        relay_lines, payloads = [], []
        for way in ("relay", "deliver"):
            for index in range(1, self.arguments.notices + 21):
                number = numbers + (1_000_000 if way == "relay" else 2_000_000) + index
                user = users[index % len(users)]
                # Past the account's minimum gap between two wake-up polls.
                time.sleep(max(0.0, last_wake[user] + 2.1 - time.monotonic()))
                self.standin.add_numbered_notice(user, number)
                shown_before = daemon.count_lines(": showing ")
                if way == "relay":
                    message = relay.control("publish", {"topic": topics[user], "message": "wake up"})
                else:
                    deliverer.stdin.write(json.dumps({"instance": self.standin.url, "user": user}) + "\n")
                    deliverer.stdin.flush()
                    answer = json.loads(deliverer.stdout.readline())
                    if "error" in answer:
                        fail(f"Deliver woke no account: {answer['error']}")
                daemon.wait_for_line(": showing ", shown_before + 1)
                last_wake[user] = time.monotonic()
                if index > 20:
                    if way == "relay":
                        relay_lines.append({"id": message["id"], "number": number, "user": user})
                    else:
                        payloads.append({"sent": answer["sent"] / 1e6, "number": number, "user": user})
                clear_screen()
        deliverer.stdin.close()
        deliverer.wait(timeout=30)
        daemon.stop()
        written = {entry["id"]: entry["monotonic"] for entry in relay.control("sent")["sent"]}
        relay.stop()
        received = server.stop()
        polls = self.standin.list_requests()

        def timed(start, number, user):
            """(start → the account's poll at the stand-in, that poll → `Notify` received), ms."""
            times = received.get(number, [])
            if len(times) != 1:
                fail(f"the instant notification server received {len(times)} `Notify` calls for notice #{number}, not 1")
            # The poll that found the notice: the account's last before the `Notify`.
            poll = max(r["time"] for r in polls if r["username"] == user and r["time"] <= times[0] / 1e6)
            return {"total": (times[0] / 1e6 - start) * 1000, "to_poll": (poll - start) * 1000,
                    "after_poll": (times[0] / 1e6 - poll) * 1000}

        return ([timed(written[line["id"]], line["number"], line["user"]) for line in relay_lines],
                [timed(p["sent"], p["number"], p["user"]) for p in payloads])

    def poll_floor(self, users):
        """The floor under the poll in the wake-up path: the list request an account's wake-up poll
        makes, straight through libcurl from a Swift process on a kept connection (`gbnotify-bench
        poll`), for the accounts in turn, 20 unmeasured first; milliseconds, request to answer read."""
        poller = subprocess.Popen([self.bench_binary, "poll", self.standin.url, self.ca.trust_directory],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        spans = []
        for index in range(1, self.arguments.notices + 21):
            poller.stdin.write(self.standin.tokens[users[index % len(users)]] + "\n")
            poller.stdin.flush()
            answer = json.loads(poller.stdout.readline() or "{}")
            if answer.get("status") != 200:
                fail(f"gbnotify-bench poll: {answer or 'no answer'}")
            if index > 20:
                spans.append(answer["microseconds"] / 1000)
        poller.stdin.close()
        if poller.wait(timeout=30) != 0:
            fail(f"gbnotify-bench poll failed ({poller.returncode})")
        return spans

    def close(self):
        self.notifies.stop()
        self.standin.stop()
        if self.many_standin:
            self.many_standin.stop()
        self.system_bus.stop()
        self.ca.remove()
        subprocess.run(["secret-tool", "clear", "xdg:schema", SCHEMA], check=False)


class InstantServer:
    """`gbnotify-bench server`: a notification server that answers at once, in place of dunst."""

    def __init__(self, binary):
        self.process = subprocess.Popen(
            [binary, "server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        if not line or not json.loads(line).get("ready"):
            self.process.wait()
            fail(f"gbnotify-bench server did not start: {self.process.stderr.read().strip()}")

    def stop(self):
        """Ends it; returns the CLOCK_MONOTONIC microseconds of the `Notify` calls it received, by
        the notice number in their body."""
        output, errors = self.process.communicate(timeout=60)
        if self.process.returncode != 0:
            fail(f"gbnotify-bench server failed ({self.process.returncode}): {errors.strip()}")
        received = {}
        for line in output.splitlines():
            receipt = json.loads(line)
            for number in re.findall(r"#(\d+)", receipt["body"]):
                received.setdefault(int(number), []).append(receipt["t"])
        return received

class DesktopStandins:
    """Benchmarks/desktop_standins.py: a notification server that can be clicked, and a tray host.
    Its events (every `Notify` with its body, every close, every icon fetched) are kept in order.
    Started while another owns a name, it waits in the bus's queue for it: a restart without a
    moment with no server, in which the bus would start dunst for the daemon's next `Notify`."""

    def __init__(self, notifications=False, tray=False, expire=None):
        flags = (["--notifications"] if notifications else []) + (["--tray"] if tray else [])
        flags += ["--expire", str(expire)] if expire else []
        self.process = subprocess.Popen([PYTHON, DESKTOP_STANDINS, *flags], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.events = []
        self.changed = threading.Condition()
        self.ready = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            event = json.loads(line)
            if event.get("ready"):
                self.ready.set()
                continue
            with self.changed:
                self.events.append(event)
                self.changed.notify_all()

    def wait_until_serving(self, timeout=30):
        if not self.ready.wait(timeout):
            fail(f"desktop_standins.py owns none of its names after {timeout} s: {self.process.stderr.read()}")

    def count(self, kind):
        with self.changed:
            return sum(1 for event in self.events if event["event"] == kind)

    def command(self, line):
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def stop(self):
        self.process.stdin.close()
        self.process.wait(timeout=30)
        with self.changed:
            return list(self.events)


def bus(method, *arguments):
    """A method of the session bus itself, by gdbus; its answer as gdbus prints it."""
    return subprocess.run(
        ["gdbus", "call", "--session", "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus",
         "--method", f"org.freedesktop.DBus.{method}", *arguments], capture_output=True, text=True, check=True).stdout


def stop_notification_server(timeout=10):
    """Stops the session's dunst, if it runs: the process that owns the name on this session's
    bus, so that no dunst of another session on the machine is touched."""
    name = "org.freedesktop.Notifications"
    if "true" not in bus("NameHasOwner", name):
        return
    pid = int(re.search(r"\d+", bus("GetConnectionUnixProcessID", name).split()[-1]).group())
    with open(f"/proc/{pid}/comm") as comm:
        command = comm.read().strip()
    if command != "dunst":
        fail(f"{name} is owned by {command} (pid {pid}), not dunst")
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while "true" in bus("NameHasOwner", name):
        if time.monotonic() > deadline:
            fail(f"dunst (pid {pid}) still owns {name} {timeout} s after SIGTERM")
        time.sleep(0.02)


def clear_screen():
    """Closes every notification on screen, between two measurements: dunst takes longer over
    each `Notify` the more it holds (gbnotify-bench does the same). The instant server answers
    dunst's method too, so the daemon's book stays as small as against dunst."""
    if "true" in bus("NameHasOwner", "org.freedesktop.Notifications"):  # none once `wakeup` stopped dunst
        subprocess.run(["dunstctl", "close-all"], check=True)


def summarise_requests(requests, users, seconds):
    lists = [r for r in requests if r["query_argv"] == ["notifications", "list"]]
    per_user = {user: [] for user in users}
    for request in lists:
        if request["username"] in per_user:
            per_user[request["username"]].append(request["time"])
    rates = [len(times) * 60 / seconds for times in per_user.values()]
    gaps = [later - earlier for times in per_user.values() for earlier, later in zip(times, times[1:])]
    reads_per_user = {user: 0 for user in users}
    for request in requests:
        if request["username"] in reads_per_user and request["method"] == "GET":
            reads_per_user[request["username"]] += 1
    return {
        "polls": len(lists), "statuses": {str(s): [r["status"] for r in lists].count(s) for s in {r["status"] for r in lists}},
        "rate_max": max(rates), "rate_median": median(rates),
        "reads_per_minute_max": max(reads_per_user.values()) * 60 / seconds,
        "gap_median": median(gaps), "gap_max": max(gaps) if gaps else float("nan"),
        "rate_limited": sum(1 for r in requests if r["status"] == 429)}


def match_latencies(requests, lines):
    """For each 304 poll, from the stand-in receiving it to the daemon's line about its answer
    (the first line for that account after the request); milliseconds."""
    pattern = re.compile(r"^<7>(\S+)@\S+: 304 not modified$")
    by_user = {}
    for moment, line in lines:
        match = pattern.match(line)
        if match:
            by_user.setdefault(match.group(1), []).append(moment)
    latencies = []
    for request in requests:
        if request["status"] != 304:
            continue
        later = [moment for moment in by_user.get(request["username"], []) if moment >= request["time"]]
        if later:
            latencies.append((min(later) - request["time"]) * 1000)
    return latencies


# --- the report -------------------------------------------------------------------------------------

def machine(ca):
    model = "unknown"
    with open("/proc/cpuinfo") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.strip().splitlines()
    curl = subprocess.run(["curl", "--version"], capture_output=True, text=True).stdout.split()
    library = lambda prefix: next((word.replace("/", " ") for word in curl if word.startswith(prefix)), "unknown")
    return [
        f"- CPUs (`nproc`): {os.cpu_count()}; CPU: {model}",
        f"- Kernel: {platform.system()} {platform.release()}",
        f"- Swift: {swift[0] if swift else 'unknown'}",
        f"- {library('libcurl/')} with {library('OpenSSL/')}; "
        f"Python (stand-ins) {platform.python_version()}; jq, notify-send, dunst, Mailnag and gnubiff from Debian",
        f"- TLS 1.3 (as libcurl and Python's ssl negotiate it); a CA made for the run (ECDSA P-256), trusted with "
        f"the system's, {ca.trusted} CAs in all: by gbnotifyd as the system's are when no `ca-file` is set, from a "
        f"hashed directory (`SystemTrust`: here the system's `/etc/ssl/certs` and the run's CA, given as SSL_CERT_DIR); "
        f"by the baseline's curl and by the build before the one loop as a bundle (`{SYSTEM_CAS}` and the run's)",
        f"- Scheduling priority of everything in the session: nice {os.nice(0)} (Benchmarks/run raises "
        "it where allowed, for gbnotifyd, the baseline and Mailnag alike)",
        f"- Load average when the report was written: {' '.join(open('/proc/loadavg').read().split()[:3])} "
        "(latencies and the baseline's wall-clock figures suffer on a loaded machine; CPU times less so)",
    ]


def ms(value, digits=2):
    return f"{value:.{digits}f} ms"


def ratio(ours, theirs):
    if not ours or ours != ours or theirs != theirs:
        return "n/a"
    return f"{theirs / ours:.1f}x"


def kib(value):
    return f"{value / 1024:.1f} MiB"


def memory_cell(values):
    return f"{kib(values['rss'])} / {kib(values['Pss'])} / {kib(values['Private_Dirty'])}"


def spread(values, unit, digits):
    return f"{median(values):.{digits}f} {unit} ({min(values):.{digits}f}–{max(values):.{digits}f})"


def report(results, arguments, command, ca):
    r = results
    lines = []
    out = lines.append
    out(f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} with `{command}`; each scenario "
        f"repeated {arguments.repeat}x where it says \"median of runs\".")
    out("")
    lines.extend(machine(ca))
    out("")
    out("\"Baseline\" is `Benchmarks/baseline.sh` (curl with If-None-Match and `--cacert`, jq, notify-send) against "
        "the same HTTPS stand-in and the same dunst, in the same run, unless the cell names Mailnag. Ratio = "
        "baseline / gbnotifyd (higher is better for gbnotifyd). Memory is VmRSS / Pss / Private_Dirty.")
    out("")
    out("| Figure | gbnotifyd | Baseline or peer | Ratio | Target |")
    out("|---|---|---|---|---|")

    def row(figure, ours, theirs="—", compared="—", target="—"):
        out(f"| {figure} | {ours} | {theirs} | {compared} | {target} |")

    for key, label in (("wake_relay", "Relay line written to the daemon's stream"),
                       ("wake_deliver", "`Deliver` call sent")):
        if key in r:
            part = lambda name, fraction: percentile([t[name] for t in r[key]], fraction)
            row(f"{label} → `Notify` received by an instant notification server, on the wake-up path (the "
                f"account's poll of the HTTPS stand-in included), p50 ({len(r[key])} wake-ups over 100 accounts)",
                ms(part("total", 0.5), 3), target="under 2 ms")
            row("… p99", ms(part("total", 0.99), 3), target="under 10 ms")
            row("… of which, to the account's poll reaching the stand-in / from there (the stand-in's answer, "
                "the daemon reading it and showing the notice) to `Notify` received, p50 / p99",
                f"{ms(part('to_poll', 0.5), 3)} / {ms(part('after_poll', 0.5), 3)}; "
                f"{ms(part('to_poll', 0.99), 3)} / {ms(part('after_poll', 0.99), 3)}")
    if "wake_poll_floor" in r:
        floor = r["wake_poll_floor"]
        row(f"The floor under the poll in those: the same list request straight through libcurl from a Swift "
            f"process, connection kept (`gbnotify-bench poll`), p50 / p99 ({len(floor)} requests over 100 accounts)",
            f"{ms(percentile(floor, 0.5), 3)} / {ms(percentile(floor, 0.99), 3)}")
        for key, label in (("wake_relay", "relay line"), ("wake_deliver", "`Deliver`")):
            if key in r:
                totals = [t["total"] for t in r[key]]
                row(f"… the wake-up path from a {label} less that floor (the daemon's own share), p50 / p99",
                    f"{ms(percentile(totals, 0.5) - percentile(floor, 0.5), 3)} / "
                    f"{ms(percentile(totals, 0.99) - percentile(floor, 0.99), 3)}", target="under 2 ms / under 10 ms")
    if "notify" in r:
        p50 = median([percentile(run, 0.5) / 1000 for run in r["notify"]])
        p99 = median([percentile(run, 0.99) / 1000 for run in r["notify"]])
        send = r["notify_send"]
        row(f"The floor under showing on dunst: a bare `Notify` round trip from a Swift process, p50 / p99 "
            f"({len(r['notify'][0])} calls, median of runs)", f"{ms(p50, 3)} / {ms(p99, 3)}",
            f"{ms(percentile(send, 0.5) / 1000)} / {ms(percentile(send, 0.99) / 1000)} (one `notify-send`)")

    if "rules" in r:
        costs = [cost / 1000 for cost in r["rules"]]
        row(f"CPU time deciding what pops up: 100 rules (all but a catch-all missing every notice) evaluated against "
            f"1,000 notices, in process (`gbnotify-bench rules`), median (min–max) of {len(costs)} runs",
            spread(costs, "ms", 3), target="under 5 ms")

    base = r.get("poll_baseline")
    base_per_poll = base["cpu_ms"] / base["polls"] if base else float("nan")
    base_cell = f"{ms(base_per_poll)} (a new connection and a full handshake every poll)" if base else "—"
    idle_rate = median([run["cpu_ms"] / run["seconds"] for run in r["idle_between"]]) if "idle_between" in r else 0.0
    if "hundred" in r:
        h = r["hundred"]
        polls = h["requests"]["polls"]
        per_poll = (h["cpu_ms"] - idle_rate * h["seconds"]) / polls
        r["per_poll_ms"] = per_poll
        row(f"CPU per 304 poll, 100 accounts on one HTTPS instance at 10 s, connections kept ({polls} polls in "
            f"{h['seconds']:.0f} s, {h['handshakes']} new TLS handshakes, idle CPU subtracted)", ms(per_poll, 3), base_cell,
            ratio(per_poll, base_per_poll), "at most 1 ms")
    if "tls" in r:
        t = r["tls"]
        per_hour = lambda run: run["handshakes"] / run["accounts"] * 3600 / run["seconds"]
        base_handshakes = f"{base['handshakes_per_poll'] * 120:.0f} (one per poll)" if base else "—"
        kept = t["kept"]
        kept_cpu = kept["cpu_ms"] / kept["polls"]
        row(f"CPU per 304 poll per account, one account on each of {kept['accounts']} HTTPS instances at the default "
            f"30 s, the connection kept between polls ({kept['polls']} polls in {kept['seconds']:.0f} s)", ms(kept_cpu, 3),
            base_cell, ratio(kept_cpu, base_per_poll), "at most 1 ms")
        row(f"… TLS handshakes per account per hour at the default 30 s, server keeping connections "
            f"({kept['handshakes']} in {kept['seconds']:.0f} s over {kept['accounts']} accounts)", f"{per_hour(kept):.1f}",
            base_handshakes)
        for key, label in (("closed", "server closing connections idle for 5 s, session tickets on: each poll "
                                      "a new connection"),
                           ("closed_full", "server closing connections idle for 5 s, no session resumption: a full "
                                           "handshake every poll (the worst case)")):
            run = t[key]
            cpu = run["cpu_ms"] / run["polls"]
            row(f"CPU per 304 poll per account, {label} ({run['polls']} polls at {run['interval']} s, "
                f"{run['handshakes']} handshakes, {run['resumed']} of them resumed)", ms(cpu, 3), base_cell,
                ratio(cpu, base_per_poll))
            row(f"… TLS handshakes per account per hour at the default 30 s", f"{run['handshakes'] / run['polls'] * 120:.0f}"
                f" ({'resumed' if run['resumed'] == run['handshakes'] else 'full' if run['resumed'] == 0 else 'mixed'})",
                base_handshakes)
    if "one_new" in r:
        o = r["one_new"]
        window = o["cpu_ms"] - r.get("per_poll_ms", 0) * o["not_modified"]
        per_new = window / max(1, o["fresh"])
        b = r["one_new_baseline"]
        b_new = b["cpu_ms"] / b["polls"]
        row(f"CPU per poll that finds one new notice (shown, saved; {o['fresh']} such polls, "
            f"{o['notifications']} notifications)", ms(per_new, 3), ms(b_new), ratio(per_new, b_new))

    for key, label in (("idle_30", "at the default 30 s interval (polls included)"),
                       ("idle_between", "between polls (poll-interval 3600, no poll due)")):
        if key not in r:
            continue
        runs = r[key]
        cpu = median([run["cpu_ms"] for run in runs])
        switches = median([run["switches"] for run in runs])
        polls = median([run["polls"] for run in runs])
        seconds = median([run["seconds"] for run in runs])
        theirs, compared = "—", "—"
        if key == "idle_30" and "idle_baseline" in r:
            base_cpu = median([run["cpu_ms"] for run in r["idle_baseline"]])
            base_switches = median([run["switches"] for run in r["idle_baseline"]])
            theirs = f"{ms(base_cpu, 0)}, {base_switches:.0f} switches ({r['idle_baseline'][0]['polls']} polls)"
            compared = ratio(cpu, base_cpu)
        row(f"Idle {seconds:.0f} s with 10 accounts {label}, median of runs: CPU, context switches (all threads)",
            f"{ms(cpu)}, {switches:.0f} switches ({polls:.0f} polls)", theirs, compared, "0 wake-ups between polls")
    if "laptop" in r:
        laptop = r["laptop"]
        offline = laptop["offline"]
        row(f"Offline {offline['seconds']:.0f} s (NetworkManager disconnected; 10 accounts, relay configured): "
            f"CPU, context switches (requests sent)",
            f"{ms(offline['cpu_ms'])}, {offline['switches']} switches ({offline['requests']} requests)",
            target="0 wake-ups")
        resume = laptop["resume"]
        row(f"Resume (logind's PrepareForSleep(false)) → every account polled, 10 accounts, median (min–max) of "
            f"{len(resume)}", spread([run["polled"] for run in resume], "s", 2), target="under 5 s")
        row("… → relay stream reconnected", spread([run["relay"] for run in resume], "s", 3), target="under 5 s")
        network = laptop["network"]
        row(f"Network back (NetworkManager connected again) → every account polled and the relay reconnected, "
            f"median (min–max) of {len(network)}", spread([max(run["polled"], run["relay"]) for run in network], "s", 2),
            target="under 5 s")
    peer_names = {"mailnag": "Mailnag", "gnubiff": "gnubiff"}
    per_minute = lambda run, key: run[key] * 60 / run["seconds"]
    for name, label in peer_names.items():
        if name not in r:
            continue
        peer = r[name]
        peer_cell = (f"{label} {peer['version']}, IMAP IDLE on one IMAPS connection: {ms(per_minute(peer, 'cpu_ms'))}, "
                     f"{per_minute(peer, 'switches'):.0f} switches ({len(peer['commands'])} IMAP commands)")
        for key, what in (("one_polling", "polling at the default 30 s"),
                          ("one_relay", "on a relay stream (ntfy's keepalive every 45 s, a poll every 300 s)")):
            if key in r:
                run = r[key]
                row(f"One account idle {run['seconds']:.0f} s, per minute: CPU, context switches; gbnotifyd {what}",
                    f"{ms(per_minute(run, 'cpu_ms'))}, {per_minute(run, 'switches'):.0f} switches ({run['polls']} polls)",
                    peer_cell, ratio(per_minute(run, "cpu_ms"), per_minute(peer, "cpu_ms")))
    if "one_polling" in r:
        row("Memory, one account idle after 60 s (polling)", memory_cell(r["one_polling"]["memory"]),
            "; ".join(f"{label}: {memory_cell(r[name]['memory'])}" for name, label in peer_names.items() if name in r))
    dirty_target = "Private_Dirty at most 4 MiB"
    if "start" in r:
        row("Memory at start (10 accounts, just READY, median of runs)", memory_cell(median_memory(r["start"]["memory"])),
            target=dirty_target)
    if "idle_30" in r:
        row("Memory, 10 accounts idle (after 60 s at 30 s)", memory_cell(r["idle_30"][0]["memory"]), target=dirty_target)
    if "hundred" in r:
        row("Memory, 100 accounts (after 60 s of polls at 10 s)", memory_cell(r["hundred"]["memory"]),
            f"{memory_cell(r['baseline_memory'])} (its bash)")
    if "after_10000" in r:
        row("Memory after 10,000 notices (10 rounds of 100 per account, 10 accounts)", memory_cell(r["after_10000"]))
    if "start" in r:
        row("The floor under those: the same build doing next to nothing (`gbnotify-bench floor`: session bus "
            "connected, one libcurl transfer over TLS, a little JSON decoded), median of runs",
            memory_cell(median_memory(r["start"]["floor_memory"])))
    if "tray" in r:
        t = r["tray"]
        part = lambda name: median([run[name] for run in t])
        row(f"The tray item's Private_Dirty, tray off → on (`gbnotify-tray-bench`: one process, the tray started, "
            f"50 counts shown, 50 more asked for by a host and drawn by `gbnotifyctl draw-tray-icon`, all on the loop's thread as in "
            f"gbnotifyd, the last figure 1.5 s after the host's last question), median of {len(t)} runs; of "
            f"which the start / 50 counts shown with no host / 50 asked for by a host (each drawn)",
            f"{part('off_kib')} → {part('on_kib')} KiB, +{part('growth_kib')} KiB; "
            f"+{part('started_kib') - part('off_kib')} / +{part('drawn_kib') - part('started_kib')} / "
            f"+{part('on_kib') - part('drawn_kib')} KiB", target="at most +256 KiB")
    if "burst" in r:
        cycles = r["burst"]
        cpu = median([c["cpu_ms"] for c in cycles])
        shown = median([c["notifications"] for c in cycles])
        b = r["burst_baseline"]
        row(f"1,000 new notices in one round (100 on each of 10 accounts; max-notifications 3, the default), "
            f"median of {len(cycles)} rounds: notifications shown, CPU", f"{shown:.0f} shown, {ms(cpu, 1)}",
            f"{b['notifications']} shown, {ms(b['cpu_ms'], 0)}", f"{ratio(cpu, b['cpu_ms'])} CPU",
            "one summary per account, under 100 ms")
    if "hundred" in r:
        h = r["hundred"]["requests"]
        b = r["hundred_baseline"]["requests"]
        row("100 accounts, poll-interval 10 s: list polls per account per minute, max (median)",
            f"{h['rate_max']:.1f} ({h['rate_median']:.1f})", f"{b['rate_max']:.1f} ({b['rate_median']:.1f})",
            target="inside 120 burst, 2/s refill")
        row("… reads per account per minute, max; answers 429", f"{h['reads_per_minute_max']:.1f}; {h['rate_limited']}",
            f"{b['reads_per_minute_max']:.1f}; {b['rate_limited']}", target="0 × 429")
        row("… seconds between two polls of one account, median (max)", f"{h['gap_median']:.1f} ({h['gap_max']:.1f})",
            f"{b['gap_median']:.1f} ({b['gap_max']:.1f})", target="the interval")
    if "latency" in r:
        for count, values in sorted(r["latency"].items(), key=lambda item: int(item[0])):
            if values:
                row(f"Poll latency with {count} accounts (stand-in got the request → daemon logged the 304), "
                    f"p50 / p99 over {len(values)} polls", f"{ms(percentile(values, 0.5))} / {ms(percentile(values, 0.99))}")
    if "layout" in r:
        for key, label in (("tabs", "a body of 1 MiB of tabs"), ("word", "a body of one unbroken 1 MiB word"),
                           ("entry", "one unbroken 1 MiB word as a system entry"),
                           ("code", "1 MiB of tab-indented code (`\\tx` over and over)"),
                           ("prose", "1 MiB of prose (not hostile: sentences and paragraphs)")):
            if key in r["layout"]:
                times = [t / 1000 for t in r["layout"][key]]
                row(f"Terminal view: an issue with {label} laid out at 80 columns as `gbnotifyctl show` does (cut to "
                    f"64 KiB first), p50 / max of {len(times)}", f"{ms(median(times))} / {ms(max(times))}",
                    target="under 100 ms")
    if "worst" in r:
        for key, label in WORST_CASES:
            if key in r["worst"]:
                times = [t / 1000 for t in r["worst"][key]]
                row(f"Worst input, CPU: {label} (`gbnotify-bench worst`), p50 / max of {len(times)}",
                    f"{ms(median(times))} / {ms(max(times))}", target="under 50 ms" if key != "glob" else "—")
    if "start" in r:
        ready = r["start"]["ready_ms"]
        row(f"Start to `READY=1` with 10 accounts, median (min–max) of {len(ready)} starts",
            f"{ms(median(ready), 1)} ({min(ready):.1f}–{max(ready):.1f})")
    if "idle_30" in r and "idle_30_before" in r:
        lines.extend(loop_report(r, arguments.before_label))
    if "growth" in r:
        lines.extend(growth_report(r["growth"]))
    if "one_instance" in r:
        lines.extend(one_instance_report(r["one_instance"]))
    lines.extend(parts_report(r))
    return lines


def growth_report(growth):
    """How the cost grows with the accounts (issues 29, 43): one window each at the default 30 s,
    through nghttpx offering HTTP/2, and offering only HTTP/1.1."""
    lines = ["", "Growth with the accounts (issues 29 and 43): 1 to 1,000 accounts of users of their own, spread over "
             "10 HTTPS instances (10 loopback addresses of nghttpx before one stand-in, `Tests/Standin/http2_front.py`), "
             "at the default 30 s, connections kept; nghttpx's ALPN offering h2 (HTTP/2), and in the same run only "
             "http/1.1 (HTTP/1.1); TLS handshakes from nghttpx's access log (one per connection that carried an API "
             "request); the daemon's figures from windows back to back after every account's first poll (CPU per 304 "
             "poll over them all, and each window's; memory, threads and files at their end), the baseline's "
             "(curl, beside HTTP/1.1) from whole rounds back to back (less its first) and its bash a second into its "
             "loop.", "",
             "| Accounts | Protocol | CPU per 304 poll (polls in the window) | VmRSS / Pss / Private_Dirty | Threads "
             "| Open files | Start → every account polled | Baseline: CPU per poll | Baseline: one round of polls "
             "| Baseline: its bash's memory |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    rows = [(int(count), protocol, g) for protocol, runs in growth.items() for count, g in runs.items()]
    for count, protocol, g in sorted(rows, key=lambda row: row[0]):
        b = g.get("baseline")
        base = ("—", "—", "—") if protocol != "HTTP/1.1" else (
            "—", "not run: a round takes longer than the 30 s interval (see 100)", "—") if b is None else (
            ms(b["cpu_ms"] / b["polls"]), f"{b['round_seconds']:.2f} s" if count > 1 else "one request",
            memory_cell(b["memory"]))
        costs = g.get("window_costs", [])
        spread = f", windows {min(costs):.3f}–{max(costs):.3f} ms" if len(costs) > 1 else ""
        lines.append(f"| {count:,} | {protocol} | {ms(g['cpu_ms'] / max(g['polls'], 1), 3)} ({g['polls']}{spread}) | "
                     f"{memory_cell(g['memory'])} | {g['threads']} | {g['files']} | {g['all_polled']:.2f} s (ready at "
                     f"{g['ready']:.2f} s; {g['start_handshakes']} TLS handshakes) | "
                     f"{base[0]} | {base[1]} | {base[2]} |")
    return lines


def one_instance_report(runs):
    """ONE_INSTANCE_ACCOUNTS accounts on one instance through the front (issue 43)."""
    lines = ["", f"{ONE_INSTANCE_ACCOUNTS} accounts on one instance through the same nghttpx (issue 43), at the "
             "shortest interval (10 s), once every account has polled: one window; connections that carried the "
             "window's requests by nghttpx's access log, those the daemon held to the front at its end by `ss`.", "",
             "| Protocol | Connections in the window (nghttpx) / held at its end (`ss`) / at the start | "
             "Polls per account per interval | Seconds between two polls of an account, median (max) | "
             "CPU per 304 poll (polls) | VmRSS / Pss / Private_Dirty |",
             "|---|---|---|---|---|---|"]
    for protocol, o in runs.items():
        q = o["requests"]
        lines.append(f"| {protocol} | {o['connections']} / {o['held']} / {o['start_connections']} | "
                     f"{o['per_interval']:.2f} | {q['gap_median']:.1f} ({q['gap_max']:.1f}) | "
                     f"{ms(o['cpu_ms'] / max(q['polls'], 1), 3)} ({q['polls']}) | {memory_cell(o['memory'])} |")
    return lines


def parts_report(r):
    """The new parts of this round (issue 29), each beside the same figure without it."""
    rows = []
    if "tray_cpu" in r:
        t = r["tray_cpu"]
        per_notice = lambda run: (run["cpu_ms"] + run["children_ms"]) / run["notices"]
        rows.append(f"| The tray: CPU per notice, the daemon's and the icons drawn for it (10 accounts, "
                    f"{t['on']['notices']} notices in rounds of one per account; {t['on']['icons']} icons fetched by "
                    f"the host) | {ms(per_notice(t['on']), 3)} (drawing {ms(t['on']['children_ms'] / t['on']['notices'], 3)}) "
                    f"| {ms(per_notice(t['off']), 3)} | — |")
        rows.append(f"| … the daemon's memory after those: VmRSS / Pss / Private_Dirty | {memory_cell(t['on']['memory'])} "
                    f"| {memory_cell(t['off']['memory'])} | — |")
    if "tray" in r:
        part = lambda name: median([run[name] for run in r["tray"]])
        rows.append(f"| The tray: Private_Dirty of `gbnotify-tray-bench` (its row above) | {part('on_kib')} KiB "
                    f"| {part('off_kib')} KiB | at most +256 KiB |")
    if "rules" in r and "rules_without" in r:
        rows.append(f"| Rules: CPU to decide 1,000 notices, 100 rules against none (every notice a popup), median "
                    f"(min–max) of {len(r['rules'])} runs | {spread([c / 1000 for c in r['rules']], 'ms', 3)} | "
                    f"{spread([c / 1000 for c in r['rules_without']], 'ms', 3)} | under 5 ms |")
    if "ssh_add" in r:
        m = ssh_mint.summary(r["ssh_add"])
        rows.append(f"| `gbnotifyctl account add --ssh` against the loopback sshd ({r['ssh_add']['openssh']}, its default "
                    f"key exchange) beside the token on standard input: wall, CPU of the command and its children "
                    f"(ssh), median of {len(r['ssh_add']['ssh'])} | {ms(m['ssh']['wall_ms'], 0)}, "
                    f"{ms(m['ssh']['cpu_ms'], 0)} (sshd's side {ms(m['ssh']['sshd_cpu_ms'], 0)}) | "
                    f"{ms(m['stdin']['wall_ms'], 0)}, {ms(m['stdin']['cpu_ms'], 0)} | — |")
    if "layout" in r and "prose" in r["layout"]:
        hostile = max(median(r["layout"][key]) for key in ("tabs", "word", "entry", "code") if key in r["layout"])
        rows.append(f"| The terminal view's layout of 1 MiB, p50: the slowest hostile text above against prose "
                    f"| {ms(hostile / 1000)} | {ms(median(r['layout']['prose']) / 1000)} | under 100 ms |")
    if not rows:
        return []
    return ["", "The new parts (issue 29), each beside the same figure without it, in this run (the one loop's "
            "own figures are in its table above).", "", "| Figure | With the part | Without it | Target |",
            "|---|---|---|---|"] + rows


def soak_report(s, command):
    """`make soak`: the busy day's counts, and memory, files and threads through it."""
    samples = s["samples"]
    first, last = samples[0], samples[-1]
    dirty = [sample["memory"]["Private_Dirty"] for sample in samples]
    done, planned = s["done"], s["planned"]
    lines = [f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} with `{command}`: {s['accounts']} "
             f"accounts over 10 HTTPS instances, a relay, a notification server that is clicked "
             f"(`Benchmarks/desktop_standins.py`), {s['seconds']:.0f} s of events, the first {s['warm_up']:.0f} s "
             f"of them a warm-up; a sample every {SOAK_SAMPLE_SECONDS} s from the warm-up's end.", "",
             "| What happened | Count | Planned |", "|---|---|---|",
             f"| Polls (list requests the stand-in answered) | {s['polls']:,} | {50_000 * s['seconds'] / SOAK_SECONDS:,.0f} |",
             f"| Notices added, each numbered | {s['notices']:,} | {planned['notice']:,} |",
             f"| … shown one by one, exactly once | {s['shown_once']:,} | — |",
             f"| … not shown one by one / of those, in a summary of its account sent after it came "
             f"(\"N new\", \"N new … while snoozed\", or \"N more unread\" that it joined) "
             f"| {s['not_shown_alone']:,} / {s['summarised']:,} | — |",
             f"| … neither shown nor counted in a summary | {len(s['never_shown'])} | 0 |",
             f"| … shown more than once | {len(s['shown_twice'])} | 0 |",
             f"| … added while snoozed (shown one by one: {s['snoozed_alone']}) | {s['snoozed']} | — |",
             f"| Notifications replaced in place (`Notify` with replaces_id) | {s['replaced']:,} | — |",
             f"| Notifications withdrawn (`CloseNotification`) / expired ({SOAK_POPUP_SECONDS} s, reason 1) | "
             f"{s['withdrawn']:,} / {s['expired']:,} | — |",
             f"| Clicks: Open / of those, on a notification that expired before the click reached the server "
             f"(nothing sent) / sent / opened (`xdg-open`) | {done.get('click', 0):,} / {s['missed']['click']:,} / "
             f"{s['clicked']['click']:,} / {s['opened']:,} | {planned['click']:,} |",
             f"| Clicks: Mark read / of those, on a notification that had expired / sent | "
             f"{done.get('mark_read', 0):,} / {s['missed']['mark_read']:,} / {s['clicked']['mark_read']:,} | "
             f"{planned['mark_read']:,} |",
             f"| Notices read elsewhere (withdrawn after the next poll) | {done.get('withdraw', 0):,} | {planned['withdraw']:,} |",
             f"| Relay subscriptions (the first, then one per reconnect) | {s['relay_subscriptions']:,} | "
             f"{1 + planned['network'] + planned['suspend'] + planned['relay_drop']} |",
             f"| … of which network returns / suspend-resume cycles / relay drops | {done.get('network', 0)} / "
             f"{done.get('suspend', 0)} / {done.get('relay_drop', 0)} | {planned['network']} / {planned['suspend']} / {planned['relay_drop']} |",
             f"| Keyring changes (an account stored, then cleared) | {done.get('keyring', 0)} | {planned['keyring']} |",
             f"| Reloads (SIGHUP) | {done.get('reload', 0)} | {planned['reload']} |",
             f"| Notification server restarts | {done.get('server_restart', 0)} | {planned['server_restart']} |",
             f"| Snoozes ({SOAK_SNOOZE_SECONDS} s each) | {done.get('snooze', 0)} | {planned['snooze']} |",
             f"| `Notify` calls: seen by the servers / by a `dbus-monitor` on the bus | {s['server_notifies']:,} / "
             f"{s['bus_notifies']:,} | equal |", "",
             "| Sample | Private_Dirty | Pss | VmRSS | Open files | Threads |", "|---|---|---|---|---|---|"]
    for sample in samples:
        m = sample["memory"]
        lines.append(f"| {sample['t']:.0f} s | {m['Private_Dirty']} KiB | {m['Pss']} KiB | {m['rss']} KiB | "
                     f"{sample['files']} | {sample['threads']} |")
    lines += ["", f"Private_Dirty from the first sample to the last: {last['memory']['Private_Dirty'] - first['memory']['Private_Dirty']:+} KiB "
              f"(target at most +128 KiB; lowest {min(dirty)}, highest {max(dirty)} KiB); open files "
              f"{first['files']} → {last['files']} (most {max(x['files'] for x in samples)}); threads {first['threads']} → "
              f"{last['threads']} (most {max(x['threads'] for x in samples)}); targets: neither grows."]
    return lines


def loop_report(r, before_label):
    """Issue 22's figures: this tree beside the one before the one loop, measured in turn in `idle`
    (10 accounts on the HTTPS stand-in at the default 30 s, connections kept)."""
    lines = ["", f"The one loop (issue 22): this tree beside {before_label}, each idle 60 s with 10 accounts "
             "at the default 30 s over HTTPS, connections kept, trusting the system's CAs and the run's (this tree "
             "from the hashed directory, the other from the bundle, as each does by default); "
             "median of runs, the threads as the last run named them (`/proc/PID/task/*/comm`).", "",
             f"| Figure | This tree | {before_label} | Target |", "|---|---|---|---|"]
    builds = (r["idle_30"], r["idle_30_before"])

    def row(figure, value, target):
        lines.append(f"| {figure} | {value(builds[0])} | {value(builds[1])} | {target} |")

    def threads(runs):
        names = runs[-1]["threads"]
        counted = sorted(set(names), key=names.index)
        return f"{len(names)}: " + ", ".join(f"`{name}`" + (f" ×{names.count(name)}" if names.count(name) > 1 else "")
                                            for name in counted)

    per_poll = lambda runs: median([run["switches"] / max(run["polls"], 1) for run in runs])
    row("Threads of the idle daemon", threads, "at most 3")
    row("Context switches per 304 poll, all threads (switches / polls in the window)",
        lambda runs: f"{per_poll(runs):.1f} ({median([run['switches'] for run in runs]):.0f} / "
                     f"{median([run['polls'] for run in runs]):.0f})", "at most 3")
    row("CPU per 304 poll", lambda runs: ms(median([run["cpu_ms"] / max(run["polls"], 1) for run in runs]), 3), "—")
    row("Memory after the window: VmRSS / Pss / Private_Dirty",
        lambda runs: memory_cell(median_memory([run["memory"] for run in runs])), "Private_Dirty at most 4 MiB")
    for key, label in (("wake_relay", "Relay line"), ("wake_deliver", "`Deliver`")):
        if key in r and key + "_before" in r:
            cell = lambda times: (f"{ms(percentile([t['total'] for t in times], 0.5), 3)} / "
                                  f"{ms(percentile([t['total'] for t in times], 0.99), 3)}")
            lines.append(f"| {label} → `Notify` on an instant server, the wake-up path of `wakeup` above, p50 / p99 "
                         f"({len(r[key])} wake-ups each) | {cell(r[key])} | {cell(r[key + '_before'])} | "
                         f"under 2 ms / under 10 ms |")
    return lines


def write_report(path, lines, block="results"):
    """Rewrites one block of the report (`results`, or `soak`, which `make soak` writes alone)."""
    begin, end = f"<!-- {block}: written by Benchmarks/bench.py -->", f"<!-- end of {block} -->"
    block = "\n".join([begin, ""] + lines + ["", end])
    text = open(path).read() if os.path.exists(path) else f"# Benchmarks\n\n{begin}\n{end}\n"
    if begin in text and end in text:
        text = text[:text.index(begin)] + block + text[text.index(end) + len(end):]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    with open(path, "w") as file:
        file.write(text)


# The rows of the `worst` scenario: Benchmarks/InProcess/WorstCase.swift builds each input.
WORST_CASES = (
    ("rule", "a rule `summary = *` + 4,080 `q` + `r*` deciding a notice whose summary is 1 MiB of `q`"),
    ("glob", "that rule's pattern on the whole 1 MiB, past the 1,024 characters a rule sees (no loop path)"),
    ("inbox", "a 1 MiB `notifications list` body of `\\u` escapes, decoded as the poller does"),
    ("inboxDeep", "a 1 MiB body of `[`"),
    ("relayLine", "a 64 KiB relay line of `\\u` escapes"),
    ("relaySplit", "1 MiB without a line break through the relay's line splitter"),
    ("trayMenu", "the tray's menu and looks over 20 accounts x 10 notices, each summary 1 MiB of format and control characters"),
    ("notification", "a notification's text for a group of 50 such notices"),
    ("layout", "the terminal view's layout of an issue whose system entry is one unbroken 1 MiB word"),
)

# `wakeup` and `soak` stop dunst: they stay last.
SCENARIOS = ("notify", "layout", "worst", "rules", "start", "idle", "tls", "hundred", "growth", "baseline_polls", "bursts", "latency",
             "laptop", "peers", "tray", "tray_cpu", "ssh_add", "wakeup", "soak")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, help="directory of the release gbnotifyd and gbnotify-bench")
    parser.add_argument("--out", default=os.path.join(ROOT, "BENCHMARKS.md"))
    parser.add_argument("--command", default="make bench", help="the command named in the report")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--notices", type=int, default=1000, help="measured wake-ups of each kind, and Notify calls")
    parser.add_argument("--idle-seconds", type=float, default=60)
    parser.add_argument("--growth-counts", type=lambda text: [int(n) for n in text.split(",")],
                        default=list(GROWTH_COUNTS), help="the account counts of `growth`, comma-separated")
    parser.add_argument("--growth-windows", type=int, default=GROWTH_WINDOWS,
                        help="windows of --idle-seconds at each count of `growth`")
    parser.add_argument("--tls-polls", type=int, default=5, help="polls of each account in each tls window")
    parser.add_argument("--hundred-seconds", type=float, default=60)
    parser.add_argument("--latency-seconds", type=float, default=30)
    parser.add_argument("--laptop-runs", type=int, default=5, help="resumes, and returns of the network, each")
    parser.add_argument("--soak-seconds", type=float, default=720, help="the busy day's length, its warm-up included")
    parser.add_argument("--soak-warm-up", type=float, default=60, help="the day's first seconds, from the first event to the first sample")
    parser.add_argument("--only", nargs="*", choices=SCENARIOS, default=list(SCENARIOS))
    parser.add_argument("--json", help="also write the raw figures here")
    parser.add_argument("--before", help="directory of a release gbnotifyd of an earlier tree, measured beside "
                        "this one in `idle` (Benchmarks/run builds the tree before the one loop)")
    parser.add_argument("--before-label", default="the earlier tree", help="what the report calls --before's tree")
    arguments = parser.parse_args()
    if not os.environ.get("PRIVATE_DESKTOP_SESSION"):
        fail("run inside scripts/desktop-session (Benchmarks/run does): it writes to the session's keyring")

    bench = Bench(arguments)
    try:
        for name in SCENARIOS:
            if name in arguments.only:
                bench.log(f"--- {name}")
                # What an earlier scenario left on screen goes first: dunst closing it later (its
                # notifications expire) would send NotificationClosed, which libnotify in every
                # running gbnotifyd hears, into this scenario's windows.
                clear_screen()
                time.sleep(1)
                getattr(bench, name)()
                if arguments.json:  # kept as it goes: a failure later loses no figure
                    with open(arguments.json, "w") as file:
                        json.dump(bench.results, file)
    finally:
        bench.close()
    if arguments.json:
        with open(arguments.json, "w") as file:
            json.dump(bench.results, file)
    if set(bench.results) - {"soak"}:
        write_report(arguments.out, report(bench.results, arguments, arguments.command, bench.ca))
    if "soak" in bench.results:
        write_report(arguments.out, soak_report(bench.results["soak"], arguments.command), block="soak")


if __name__ == "__main__":
    main()
