#!/usr/bin/env python3
"""gbnotify's benchmarks, beside the do-it-yourself baseline (Benchmarks/baseline.sh).

Run by Benchmarks/run (`make bench`) inside scripts/desktop-session, which gives it a private
session bus, an unlocked gnome-keyring and dunst on Xvfb. It starts one gitbay stand-in
(Tests/Standin) with 100 users, puts the accounts each scenario needs into the session's
keyring, runs the release gbnotifyd (or the baseline) against it, and writes BENCHMARKS.md.

How things are measured:
- daemon CPU time and context switches: `perf stat -e task-clock,context-switches -p PID`,
  started with its counters off and switched on and off through its control pipe exactly at
  the window's edges (every thread of the daemon, threads started meanwhile included);
- the baseline's CPU time and context switches: getrusage(RUSAGE_CHILDREN) around a run with
  a fixed number of rounds (it covers the script and everything it started and waited for);
- polls, their statuses and their times: the stand-in's request log;
- notifications shown: `Notify` calls seen by a `dbus-monitor` on the session bus;
- memory: /proc/PID/status (VmRSS) and /proc/PID/smaps_rollup (Pss, Private_*);
- start to ready: `READY=1` on a NOTIFY_SOCKET this script listens on;
- presenter, bare `Notify` and `Deliver` latencies: in process, by gbnotify-bench
  (Benchmarks/InProcess); the baseline's: one `notify-send` run, start to exit;
- relay latency: from publishing a line on the relay stand-in to the moment this script reads
  the daemon's log line saying the notice is shown (logged once `Notify` returned);
- poll latency: from the stand-in's receipt of a list request (its log's CLOCK_MONOTONIC time)
  to the moment this script reads the daemon's `--verbose` line about the answer;
- the daemon's own share (`share`, last: it stops dunst): dunst replaced by `gbnotify-bench
  server`, which answers at once and notes the CLOCK_MONOTONIC time each `Notify` reaches its
  handler; from `gbnotify-bench deliver`'s call sent, or from the relay stand-in's write of the
  line to the daemon's stream (its `/_relay/sent`), to that receipt, paired by the notice's body.
Latencies are measured one at a time, with dunst's screen cleared between two (unmeasured).
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
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASELINE = os.path.join(ROOT, "Benchmarks", "baseline.sh")
STANDIN = os.path.join(ROOT, "Tests", "Standin", "gitbay_standin.py")
RELAY = os.path.join(ROOT, "Tests", "Standin", "relay_standin.py")
SCHEMA = "org.gitbay.Account"
USERS = [f"u{n:03d}" for n in range(100)]


def fail(message):
    sys.exit(f"bench: {message}")


def percentile(values, fraction):
    """Nearest-rank percentile of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, int(-(-fraction * len(ordered) // 1)))
    return ordered[rank - 1]


def median(values):
    return statistics.median(values) if values else float("nan")


# --- the stand-in -----------------------------------------------------------------------------

class Standin:
    def __init__(self):
        self.process = subprocess.Popen(
            ["/usr/bin/python3", STANDIN, "--port", "0"], stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True)
        line = self.process.stdout.readline()
        if not line:
            fail("the gitbay stand-in did not start")
        self.url = json.loads(line)["url"]

    def control(self, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + "/_standin/" + path, data=data)
        with urllib.request.urlopen(request, timeout=120) as answer:
            return json.loads(answer.read())

    def requests(self):
        return self.control("requests")["requests"]

    def list_requests(self):
        return [r for r in self.requests() if r["query_argv"] == ["notifications", "list"]]

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

    def add_notices(self, users, count):
        for user in users:
            if count == 1:
                self.control("notifications", {"username": user})
            else:
                self.control("notifications/bulk", {"username": user, "count": count})

    def stop(self):
        self.process.terminate()
        self.process.wait()


# --- the keyring ------------------------------------------------------------------------------

class Keyring:
    def __init__(self, standin, tokens):
        self.standin = standin
        self.tokens = tokens

    def use(self, users):
        """Exactly these users' accounts in the keyring."""
        subprocess.run(["secret-tool", "clear", "xdg:schema", SCHEMA], check=False)
        for user in users:
            subprocess.run(
                ["secret-tool", "store", f"--label=gitbay {user}", "xdg:schema", SCHEMA,
                 "instance", self.standin.url, "user", user],
                input=self.tokens[user], text=True, check=True)


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
    """A release gbnotifyd with a config, state and readiness socket of its own."""

    def __init__(self, binary, poll_interval, verbose=False, config=""):
        self.home = tempfile.mkdtemp(prefix="gbnotify-bench-")
        os.makedirs(os.path.join(self.home, "config", "gbnotifyd"))
        with open(os.path.join(self.home, "config", "gbnotifyd", "config"), "w") as file:
            file.write(f"poll-interval = {poll_interval}\n{config}")
        self.readiness = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.readiness.bind(os.path.join(self.home, "notify"))
        self.readiness.settimeout(60)
        environment = dict(os.environ)
        environment.update(
            XDG_CONFIG_HOME=os.path.join(self.home, "config"), XDG_STATE_HOME=os.path.join(self.home, "state"),
            NOTIFY_SOCKET=os.path.join(self.home, "notify"))
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

    def wait_for_line(self, text, occurrence, timeout=30):
        """The moment the `occurrence`-th line containing `text` was read."""
        with self.arrived:
            matching = lambda: [moment for moment, line in self.lines if text in line]
            if not self.arrived.wait_for(lambda: len(matching()) >= occurrence, timeout):
                fail(f"gbnotifyd logged no line {occurrence} with {text!r} within {timeout} s")
            return matching()[occurrence - 1]

    def saved_marks(self):
        """Each account's persisted high-water mark, by account id."""
        try:
            with open(os.path.join(self.home, "state", "gbnotifyd", "accounts.json")) as file:
                return {key: record.get("highWater") for key, record in json.load(file)["accounts"].items()}
        except (FileNotFoundError, json.JSONDecodeError):
            return {}

    def wait_for_marks(self, marks, timeout=120):
        """Waits until every account in `marks` (user -> id) has saved that high-water mark."""
        deadline = time.monotonic() + timeout
        while True:
            saved = self.saved_marks()
            # A record without a mark is a registration whose first poll is not saved yet.
            saved_of = lambda user: saved.get(f"{user}@{self.standin_url}")
            missing = [user for user, mark in marks.items() if saved_of(user) is None or saved_of(user) < mark]
            if not missing:
                return
            if time.monotonic() > deadline:
                fail(f"gbnotifyd did not save the marks of {missing[:5]} within {timeout} s")
            time.sleep(0.02)

    def memory(self):
        return memory(self.pid)

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=30)
        self.readiness.close()
        shutil.rmtree(self.home, ignore_errors=True)


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


def measured(pid, work):
    window = PerfWindow(pid)
    window.start()
    work()
    return window.stop()


# --- the baseline ---------------------------------------------------------------------------------

class Baseline:
    def __init__(self, standin, users, interval, cycles=0):
        self.file = tempfile.NamedTemporaryFile("w", prefix="baseline-accounts-", delete=False)
        for user in users:
            self.file.write(f"{standin.url} {user}\n")
        self.file.close()
        environment = dict(os.environ, INTERVAL=str(interval), CYCLES=str(cycles))
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
        self.standin = Standin()
        tokens = {}
        for user in USERS:
            self.standin.control("users", {"username": user})
            tokens[user] = self.standin.control("tokens", {"username": user})["token"]
        self.keyring = Keyring(self.standin, tokens)
        self.notifies = NotifyCounter()
        self.results = {}

    def log(self, message):
        print(f"bench: {message}", file=sys.stderr, flush=True)

    def daemon(self, users, poll_interval, verbose=False, config=""):
        """A daemon over `users`, returned once each account's first poll is saved."""
        self.keyring.use(users)
        self.standin.control("requests/clear", {})
        daemon = Daemon(self.daemon_binary, poll_interval, verbose, config)
        daemon.standin_url = self.standin.url
        daemon.wait_for_marks({user: 0 for user in users})
        return daemon

    def newest_ids(self, users):
        state = self.standin.control("state")
        newest = {user: 0 for user in users}
        for row in state["notifications"]:
            if row["username"] in newest:
                newest[row["username"]] = max(newest[row["username"]], row["id"])
        return newest

    # Start to ready, and memory at start.
    def start(self):
        users = USERS[:10]
        self.keyring.use(users)
        ready, at_start, floor = [], [], []
        for _ in range(self.arguments.repeat * 3):
            daemon = Daemon(self.daemon_binary, 30)
            ready.append(daemon.ready_seconds * 1000)
            at_start.append(daemon.memory())
            daemon.stop()
        # The floor under that memory: the same build's runtime and libraries doing next to nothing.
        for _ in range(self.arguments.repeat):
            process = subprocess.Popen([self.bench_binary, "floor", self.standin.url],
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
    def idle(self):
        users = USERS[:10]
        seconds = self.arguments.idle_seconds
        for interval, key in ((30, "idle_30"), (3600, "idle_between")):
            runs = []
            for _ in range(self.arguments.repeat):
                daemon = self.daemon(users, interval)
                self.standin.control("requests/clear", {})
                window = measured(daemon.pid, lambda: time.sleep(seconds))
                polls = len(self.standin.list_requests())
                runs.append({"cpu_ms": window.cpu_ms, "switches": window.switches, "seconds": window.seconds,
                             "polls": polls, "memory": daemon.memory()})
                daemon.stop()
            self.results[key] = runs
            self.log(f"idle {interval}: {runs}")
        # The baseline at the default interval: the rounds that fit in the same time, after a
        # first round (its start-up: keyring look-ups, the first full answers), less that round.
        rounds = max(1, round(seconds / 30))
        self.keyring.use(users)
        runs = []
        for _ in range(self.arguments.repeat):
            first = Baseline(self.standin, users, 30, cycles=1).finish()
            cpu_ms, switches = Baseline(self.standin, users, 30, cycles=1 + rounds).finish()
            runs.append({"cpu_ms": cpu_ms - first[0], "switches": switches - first[1], "polls": 10 * rounds})
        self.results["idle_baseline"] = runs
        self.log(f"idle baseline: {runs}")

    # CPU per 304 poll, requests per account per minute and poll spacing, with 100 accounts.
    def hundred(self):
        users = USERS
        seconds = self.arguments.hundred_seconds
        daemon = self.daemon(users, 10)
        self.standin.control("requests/clear", {})
        window = measured(daemon.pid, lambda: time.sleep(seconds))
        requests = self.standin.requests()
        self.results["hundred"] = {
            "cpu_ms": window.cpu_ms, "switches": window.switches, "seconds": window.seconds,
            "requests": summarise_requests(requests, users, window.seconds), "memory": daemon.memory()}
        daemon.stop()
        self.log(f"100 accounts: {self.results['hundred']['cpu_ms']:.1f} ms CPU")

        self.keyring.use(users)
        self.standin.control("requests/clear", {})
        baseline = Baseline(self.standin, users, 10)
        started = time.monotonic()
        time.sleep(seconds)
        shell = memory(baseline.process.pid)
        self.results["baseline_memory"] = f"{kib(shell['rss'])} / {kib(shell['Pss'])} / {kib(shell['private'])} (its bash)"
        baseline.kill()
        self.results["hundred_baseline"] = {
            "requests": summarise_requests(self.standin.requests(), users, time.monotonic() - started)}

    # CPU per 304 poll of the baseline: whole rounds, less one round.
    def baseline_polls(self):
        users = USERS[:10]
        self.keyring.use(users)
        one = Baseline(self.standin, users, 0, cycles=1).finish()
        many = Baseline(self.standin, users, 0, cycles=7).finish()
        self.results["poll_baseline"] = {"cpu_ms": many[0] - one[0], "switches": many[1] - one[1], "polls": 60}

    # A poll that finds one new notice, then 1,000 new notices in one round, ten times.
    def bursts(self):
        users = USERS[:10]
        daemon = self.daemon(users, 10)
        rounds = self.arguments.repeat * 2
        first_notify = self.notifies.value()

        def one_new_rounds():
            for _ in range(rounds):
                self.standin.add_notices(users, 1)
                daemon.wait_for_marks(self.newest_ids(users))

        self.standin.control("requests/clear", {})
        window = measured(daemon.pid, one_new_rounds)
        statuses = [r["status"] for r in self.standin.list_requests()]
        self.results["one_new"] = {
            "cpu_ms": window.cpu_ms, "switches": window.switches, "fresh": statuses.count(200),
            "not_modified": statuses.count(304), "notifications": self.notifies.value() - first_notify}

        cycles = []
        for _ in range(10):
            before = self.notifies.value()
            self.standin.control("requests/clear", {})

            def burst():
                self.standin.add_notices(users, 100)
                daemon.wait_for_marks(self.newest_ids(users))

            window = measured(daemon.pid, burst)
            cycles.append({"cpu_ms": window.cpu_ms, "notifications": self.notifies.value() - before,
                           "requests": len(self.standin.requests())})
        self.results["burst"] = cycles
        self.results["after_10000"] = daemon.memory()
        daemon.stop()
        self.log(f"1,000 in one round: {cycles}")

        # The baseline: one round to learn where each inbox stands, then rounds with new notices.
        self.keyring.use(users)
        idle = Baseline(self.standin, users, 0, cycles=1).finish()
        for key, per_user, count in (("one_new_baseline", 1, 3), ("burst_baseline", 100, 1)):
            self.standin.control("requests/clear", {})
            before = self.notifies.value()
            baseline = Baseline(self.standin, users, 2, cycles=1 + count)
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
            users = USERS[:count]
            daemon = self.daemon(users, 10, verbose=True)
            self.standin.control("requests/clear", {})
            started = time.monotonic()
            time.sleep(self.arguments.latency_seconds)
            requests = self.standin.list_requests()
            lines = [entry for entry in daemon.log() if entry[0] >= started and ": 304 not modified" in entry[1]]
            daemon.stop()
            results[count] = match_latencies(requests, lines, self.standin.url)
        self.results["latency"] = results
        self.log(f"poll latency: {results}")

    # A notice handed to the presenter to `Notify` returned, and notify-send for the baseline.
    def presenter(self):
        count = self.arguments.notices
        for mode in ("presenter", "notify"):
            runs = []
            for _ in range(self.arguments.repeat):
                answer = subprocess.run([self.bench_binary, mode, str(count)], capture_output=True, text=True, check=True)
                runs.append(json.loads(answer.stdout)["microseconds"])
            self.results[mode] = runs
        baseline = []
        for index in range(count // 5):
            started = time.monotonic()
            subprocess.run(["notify-send", "-a", "gitbay", "krz/gitbay", f"eve opened issue #{index}"], check=True)
            baseline.append((time.monotonic() - started) * 1e6)
            clear_screen()
        self.results["presenter_baseline"] = baseline
        self.log(f"presenter p50 {median(self.results['presenter'][0]):.0f} us; "
                 f"notify-send p50 {median(baseline):.0f} us")

    # A payload handed to a running daemon's `Deliver` to its reply, sent once `Notify` returned.
    def deliver(self):
        daemon = self.daemon(USERS[:1], 30)
        runs = [run["microseconds"] for run in self.deliver_runs(daemon)]
        daemon.stop()
        self.results["deliver"] = runs
        self.log(f"Deliver p50 {median(runs[0]):.0f} us")

    def deliver_runs(self, daemon, *others):
        """`gbnotify-bench deliver` against `daemon`'s first account, `--repeat` times: each run's
        answer. A failed run stops `daemon` and `others` and ends the benchmark."""
        runs = []
        for _ in range(self.arguments.repeat):
            answer = subprocess.run(
                [self.bench_binary, "deliver", self.standin.url, USERS[0], str(self.arguments.notices)],
                capture_output=True, text=True)
            if answer.returncode != 0:
                for process in (daemon, *others):
                    process.stop()
                fail(f"gbnotify-bench deliver failed: {answer.stderr.strip()}")
            runs.append(json.loads(answer.stdout))
        return runs

    # A line published on the relay to the daemon's log line saying its `Notify` returned.
    def relay(self):
        lines = self.relay_lines(2_000_000)
        latencies = [(line["shown"] - line["published"]) * 1000 for line in lines]
        self.results["relay"] = latencies
        self.log(f"relay p50 {median(latencies):.2f} ms")

    def relay_lines(self, base):
        """Publishes 20 unmeasured and then `--notices` lines on a relay stand-in that a daemon
        follows, one at a time, each once the last one's notification is shown. For each measured
        line: its notice's body, when this script sent the publish request, when the relay wrote
        the line to the daemon's stream (its `/_relay/sent`), and when this script read the
        daemon's log line that the notice was shown (CLOCK_MONOTONIC seconds, all three)."""
        relay = subprocess.Popen(
            ["/usr/bin/python3", RELAY], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        url = json.loads(relay.stdout.readline())["url"]

        def control(path, body=None):
            data = None if body is None else json.dumps(body).encode()
            with urllib.request.urlopen(urllib.request.Request(url + "/_relay/" + path, data=data), timeout=60) as answer:
                return json.loads(answer.read())

        user = USERS[1]
        daemon = self.daemon([user], 30, config=f"relay-url = {url}\nrelay-topic = bench\n")
        if control("streams/wait?open=1&timeout=30")["timed_out"]:
            fail("gbnotifyd did not open the relay stream")
        lines = []
        for index in range(1, self.arguments.notices + 21):
            body = f"eve opened issue #{base + index}"
            payload = {"aps": {"alert": {"title": "krz/gitbay", "body": body}},
                       "path": f"krz/gitbay/issues/{base + index}", "instance": self.standin.url, "user": user}
            shown_before = sum(1 for _, line in daemon.log() if ": showing " in line)
            published = time.monotonic()
            message = control("publish", {"topic": "bench", "message": json.dumps(payload)})
            shown = daemon.wait_for_line(": showing ", shown_before + 1)
            if index > 20:
                lines.append({"id": message["id"], "body": body, "published": published, "shown": shown})
            clear_screen()
        daemon.stop()
        written = {entry["id"]: entry["monotonic"] for entry in control("sent")["sent"]}
        for line in lines:
            line["written"] = written[line["id"]]
        relay.terminate()
        relay.wait()
        return lines

    # The daemon's own share of "payload in → `Notify`": dunst replaced by a server that answers
    # at once, from a payload handed over (`Deliver` or a relay line) to that server's receipt
    # of its `Notify`. Stops dunst, so it runs last.
    def share(self):
        stop_notification_server()
        server = InstantServer(self.bench_binary)
        daemon = self.daemon(USERS[:1], 30)
        runs = [run["payloads"] for run in self.deliver_runs(daemon, server)]
        daemon.stop()
        lines = self.relay_lines(3_000_000)
        received = server.stop()

        def receipt(body):
            times = received.get(body, [])
            if len(times) != 1:
                fail(f"the instant notification server received {len(times)} `Notify` calls with the body {body!r}, not 1")
            return times[0]

        self.results["share_deliver"] = [
            {"notify": [receipt(p["body"]) - p["sent"] for p in run],
             "reply": [p["replied"] - p["sent"] for p in run]} for run in runs]
        self.results["share_relay"] = [(receipt(line["body"]) / 1e6 - line["written"]) * 1000 for line in lines]
        self.log(f"share: Deliver → Notify p50 {median(self.results['share_deliver'][0]['notify']):.0f} us; "
                 f"relay → Notify p50 {median(self.results['share_relay']):.2f} ms")

    def close(self):
        self.notifies.stop()
        self.standin.stop()
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
        """Ends it; returns the CLOCK_MONOTONIC microseconds of the `Notify` calls it received,
        by body."""
        output, errors = self.process.communicate(timeout=60)
        if self.process.returncode != 0:
            fail(f"gbnotify-bench server failed ({self.process.returncode}): {errors.strip()}")
        received = {}
        for line in output.splitlines():
            receipt = json.loads(line)
            received.setdefault(receipt["body"], []).append(receipt["t"])
        return received


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
    """Closes every notification dunst shows, between two measurements: dunst takes longer
    over each `Notify` the more it holds (gbnotify-bench does the same)."""
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


def match_latencies(requests, lines, url):
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

def machine():
    model = "unknown"
    with open("/proc/cpuinfo") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.strip().splitlines()
    return [
        f"- CPUs (`nproc`): {os.cpu_count()}; CPU: {model}",
        f"- Kernel: {platform.system()} {platform.release()}",
        f"- Swift: {swift[0] if swift else 'unknown'}",
        f"- Python (stand-in): {platform.python_version()}; curl, jq, notify-send and dunst from Debian",
        f"- Scheduling priority of everything in the session: nice {os.nice(0)} (Benchmarks/run raises "
        "it where allowed, for gbnotifyd and the baseline alike)",
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


def report(results, arguments, command):
    r = results
    lines = []
    out = lines.append
    out(f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} with `{command}`; each scenario "
        f"repeated {arguments.repeat}x where it says \"median of runs\".")
    out("")
    lines.extend(machine())
    out("")
    out("\"Baseline\" is `Benchmarks/baseline.sh` (curl with If-None-Match, jq, notify-send) against the "
        "same stand-in and the same dunst, in the same run. Ratio = baseline / gbnotifyd (higher is better "
        "for gbnotifyd).")
    out("")
    out("| Figure | gbnotifyd | Baseline | Ratio | Target |")
    out("|---|---|---|---|---|")

    if "presenter" in r:
        p50 = median([percentile(run, 0.5) / 1000 for run in r["presenter"]])
        p99 = median([percentile(run, 0.99) / 1000 for run in r["presenter"]])
        b50 = percentile(r["presenter_baseline"], 0.5) / 1000
        b99 = percentile(r["presenter_baseline"], 0.99) / 1000
        n = len(r["presenter"][0])
        out(f"| Notice handed to the presenter → `Notify` returned, p50 ({n} notices, median of runs) "
            f"| {ms(p50, 3)} | {ms(b50)} (one `notify-send`) | {ratio(p50, b50)} | — |")
        out(f"| … p99 | {ms(p99, 3)} | {ms(b99)} | {ratio(p99, b99)} | — |")

    if "notify" in r:
        p50 = median([percentile(run, 0.5) / 1000 for run in r["notify"]])
        p99 = median([percentile(run, 0.99) / 1000 for run in r["notify"]])
        out(f"| The floor under both: a bare `Notify` round trip to dunst from a Swift process, p50 / p99 "
            f"| {ms(p50, 3)} / {ms(p99, 3)} | — | — | — |")
    if "deliver" in r:
        p50 = median([percentile(run, 0.5) / 1000 for run in r["deliver"]])
        p99 = median([percentile(run, 0.99) / 1000 for run in r["deliver"]])
        # The baseline's figure comes from `presenter`; without that scenario, none.
        baseline = r.get("presenter_baseline")
        b50 = percentile(baseline, 0.5) / 1000 if baseline else float("nan")
        b99 = percentile(baseline, 0.99) / 1000 if baseline else float("nan")
        out(f"| Payload in by `Deliver` over D-Bus → reply (sent once `Notify` returned), p50 "
            f"({len(r['deliver'][0])} payloads, median of runs) "
            f"| {ms(p50, 3)} | {f'{ms(b50)} (one `notify-send`)' if baseline else '—'} "
            f"| {ratio(p50, b50) if baseline else '—'} | 1 ms |")
        out(f"| … p99 | {ms(p99, 3)} | {ms(b99) if baseline else '—'} | {ratio(p99, b99) if baseline else '—'} | 5 ms |")
    if "share_deliver" in r:
        runs = r["share_deliver"]
        notify50 = median([percentile(run["notify"], 0.5) / 1000 for run in runs])
        notify99 = median([percentile(run["notify"], 0.99) / 1000 for run in runs])
        reply50 = median([percentile(run["reply"], 0.5) / 1000 for run in runs])
        reply99 = median([percentile(run["reply"], 0.99) / 1000 for run in runs])
        out(f"| Payload in by `Deliver` → `Notify` received by an instant notification server (the daemon's own "
            f"share), p50 ({len(runs[0]['notify'])} payloads, median of runs) | {ms(notify50, 3)} | — | — | 1 ms |")
        out(f"| … p99 | {ms(notify99, 3)} | — | — | 5 ms |")
        out(f"| … → `Deliver` reply, sent once that server's `Notify` returned, p50 / p99 "
            f"| {ms(reply50, 3)} / {ms(reply99, 3)} | — | — | 1 ms / 5 ms |")

    if "relay" in r:
        values = r["relay"]
        out(f"| Relay line published → daemon's log line that `Notify` returned, p50 ({len(values)} lines; "
            f"includes the relay stand-in's publish and the log pipe) | {ms(percentile(values, 0.5))} | — | — | 1 ms |")
        out(f"| … p99 | {ms(percentile(values, 0.99))} | — | — | 5 ms |")
    if "share_relay" in r:
        values = r["share_relay"]
        out(f"| Relay line written to the daemon's stream → `Notify` received by an instant notification server "
            f"(the daemon's own share), p50 ({len(values)} lines) "
            f"| {ms(percentile(values, 0.5), 3)} | — | — | 1 ms |")
        out(f"| … p99 | {ms(percentile(values, 0.99), 3)} | — | — | 5 ms |")

    idle_rate = 0.0
    if "idle_between" in r:
        idle_rate = median([run["cpu_ms"] / run["seconds"] for run in r["idle_between"]])
    if "hundred" in r:
        h = r["hundred"]
        polls = h["requests"]["polls"]
        per_poll = (h["cpu_ms"] - idle_rate * h["seconds"]) / polls
        base = r.get("poll_baseline")
        base_per_poll = base["cpu_ms"] / base["polls"] if base else float("nan")
        out(f"| CPU per 304 poll per account (100 accounts, {polls} polls in {h['seconds']:.0f} s, idle CPU "
            f"subtracted) | {ms(per_poll, 3)} | {ms(base_per_poll)} | {ratio(per_poll, base_per_poll)} "
            f"| well under 1 ms |")
        r["per_poll_ms"] = per_poll
    if "one_new" in r:
        o = r["one_new"]
        per_poll = r.get("per_poll_ms", 0)
        window = o["cpu_ms"] - per_poll * o["not_modified"]
        per_new = window / max(1, o["fresh"])
        b = r["one_new_baseline"]
        b_new = b["cpu_ms"] / b["polls"]
        out(f"| CPU per poll that finds one new notice (shown, saved; {o['fresh']} such polls, "
            f"{o['notifications']} notifications) | {ms(per_new, 3)} | {ms(b_new)} | {ratio(per_new, b_new)} | — |")
    for key, label in (("idle_30", "at the default 30 s interval (polls included)"),
                       ("idle_between", "between polls (poll-interval 3600, no poll due)")):
        if key not in r:
            continue
        runs = r[key]
        cpu = median([run["cpu_ms"] for run in runs])
        switches = median([run["switches"] for run in runs])
        polls = median([run["polls"] for run in runs])
        seconds = median([run["seconds"] for run in runs])
        base = ""
        base_cpu = base_switches = float("nan")
        if key == "idle_30" and "idle_baseline" in r:
            base_cpu = median([run["cpu_ms"] for run in r["idle_baseline"]])
            base_switches = median([run["switches"] for run in r["idle_baseline"]])
            base = f"{ms(base_cpu, 0)}, {base_switches:.0f} switches ({r['idle_baseline'][0]['polls']} polls)"
        out(f"| Idle {seconds:.0f} s with 10 accounts {label}, median of runs: CPU, context switches "
            f"| {ms(cpu)}, {switches:.0f} switches ({polls:.0f} polls) | {base or '—'} "
            f"| {ratio(cpu, base_cpu) if base else '—'} | no wake-ups between polls |")
    if "start" in r:
        start_memory = r["start"]["memory"]
        for label, memory in (
                ("at start (10 accounts, just READY, median of runs)", {
                    k: median([m[k] for m in start_memory]) for k in start_memory[0]}),
                ("10 accounts idle (after 60 s)", r["idle_30"][0]["memory"] if "idle_30" in r else None),
                ("100 accounts (after 60 s of polls)", r["hundred"]["memory"] if "hundred" in r else None),
                ("after 10,000 notices (10 rounds of 100 per account, 10 accounts)", r.get("after_10000"))):
            if memory:
                out(f"| Memory {label}: VmRSS / Pss / private | {kib(memory['rss'])} / {kib(memory['Pss'])} / "
                    f"{kib(memory['private'])} | {r.get('baseline_memory', '—') if label.startswith('100') else '—'} "
                    f"| — | under 15 MB with 10 accounts |")
        floor = r["start"].get("floor_memory")
        if floor:
            memory = {k: median([m[k] for m in floor]) for k in floor[0]}
            out(f"| The floor under those: the same build doing next to nothing (`gbnotify-bench floor`: session bus "
                f"connected, one libcurl transfer, a little JSON decoded), median of runs: VmRSS / Pss / private "
                f"| {kib(memory['rss'])} / {kib(memory['Pss'])} / {kib(memory['private'])} | — | — | — |")
    if "burst" in r:
        cycles = r["burst"]
        cpu = median([c["cpu_ms"] for c in cycles])
        shown = median([c["notifications"] for c in cycles])
        b = r["burst_baseline"]
        out(f"| 1,000 new notices in one round (100 on each of 10 accounts), median of {len(cycles)} rounds: "
            f"notifications shown, CPU | {shown:.0f} shown, {ms(cpu, 1)} | {b['notifications']} shown, "
            f"{ms(b['cpu_ms'], 0)} | {ratio(cpu, b['cpu_ms'])} CPU | one summary per account, under 100 ms |")
    if "hundred" in r:
        h = r["hundred"]["requests"]
        b = r["hundred_baseline"]["requests"]
        out(f"| 100 accounts, poll-interval 10 s: list polls per account per minute, max (median) "
            f"| {h['rate_max']:.1f} ({h['rate_median']:.1f}) | {b['rate_max']:.1f} ({b['rate_median']:.1f}) | — "
            f"| inside 120 burst, 2/s refill |")
        out(f"| … reads per account per minute, max; answers 429 | {h['reads_per_minute_max']:.1f}; "
            f"{h['rate_limited']} | {b['reads_per_minute_max']:.1f}; {b['rate_limited']} | — | 0 × 429 |")
        out(f"| … seconds between two polls of one account, median (max) | {h['gap_median']:.1f} "
            f"({h['gap_max']:.1f}) | {b['gap_median']:.1f} ({b['gap_max']:.1f}) | — | the interval |")
    if "latency" in r:
        for count, values in sorted(r["latency"].items(), key=lambda item: int(item[0])):
            if values:
                out(f"| Poll latency with {count} accounts (stand-in got the request → daemon logged the 304), "
                    f"p50 / p99 over {len(values)} polls | {ms(percentile(values, 0.5))} / "
                    f"{ms(percentile(values, 0.99))} | — | — | — |")
    if "start" in r:
        ready = r["start"]["ready_ms"]
        out(f"| Start to `READY=1` with 10 accounts, median (min–max) of {len(ready)} starts "
            f"| {ms(median(ready), 1)} ({min(ready):.1f}–{max(ready):.1f}) | — | — | — |")
    return lines


def write_report(path, lines):
    begin, end = "<!-- results: written by Benchmarks/bench.py -->", "<!-- end of results -->"
    block = "\n".join([begin, ""] + lines + ["", end])
    text = open(path).read() if os.path.exists(path) else f"# Benchmarks\n\n{begin}\n{end}\n"
    if begin in text and end in text:
        text = text[:text.index(begin)] + block + text[text.index(end) + len(end):]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    with open(path, "w") as file:
        file.write(text)


# `share` stops dunst: it stays last.
SCENARIOS = ("presenter", "deliver", "relay", "start", "idle", "hundred", "baseline_polls", "bursts", "latency", "share")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, help="directory of the release gbnotifyd and gbnotify-bench")
    parser.add_argument("--out", default=os.path.join(ROOT, "BENCHMARKS.md"))
    parser.add_argument("--command", default="make bench", help="the command named in the report")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--notices", type=int, default=1000)
    parser.add_argument("--idle-seconds", type=float, default=60)
    parser.add_argument("--hundred-seconds", type=float, default=60)
    parser.add_argument("--latency-seconds", type=float, default=30)
    parser.add_argument("--only", nargs="*", choices=SCENARIOS, default=list(SCENARIOS))
    parser.add_argument("--json", help="also write the raw figures here")
    arguments = parser.parse_args()
    if not os.environ.get("PRIVATE_DESKTOP_SESSION"):
        fail("run inside scripts/desktop-session (Benchmarks/run does): it writes to the session's keyring")

    bench = Bench(arguments)
    try:
        for name in SCENARIOS:
            if name in arguments.only:
                bench.log(f"--- {name}")
                getattr(bench, name)()
    finally:
        bench.close()
    if arguments.json:
        with open(arguments.json, "w") as file:
            json.dump(bench.results, file)
    write_report(arguments.out, report(bench.results, arguments, arguments.command))


if __name__ == "__main__":
    main()
