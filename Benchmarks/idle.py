#!/usr/bin/env python3
"""The memory and context switches of gbnotifyd builds left idle, side by side in one session.

    scripts/desktop-session python3 Benchmarks/idle.py [--poll-interval S] NAME=BINARY [NAME=BINARY ...]

For each run and each build in turn: the build's gbnotifyd starts with a home of its own and a
config with nothing but `ca-file` and `poll-interval` (by default none: the default, every 30 s),
over ACCOUNTS accounts (10) of one gitbay stand-in behind TLS with a CA made for the run
(bench.py's RunCA and Standin), stored in the session's keyring with secret-tool; once every
account's first poll is answered and it has gone quiet (every thread asleep, none run for half a
second), it is left alone for SECONDS (60); then its VmRSS (/proc/PID/status),
Pss, Private_Dirty and Private_Clean (/proc/PID/smaps_rollup, KiB) are read, with the context
switches of all its threads in the window (voluntary and not, /proc/PID/task/*/status), and it
is stopped. Prints each run and the median per build. Not part of make check (that has
Tests/DaemonTests/IdleTests.swift); wants a quiet machine.
"""

import argparse
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

from bench import RunCA, Standin, memory, use_accounts

# What is printed of bench.memory's values (VmRSS as "rss"), and the context switches.
FIELDS = ("rss", "Pss", "Private_Dirty", "Private_Clean", "switches")


def threads(pid):
    """Each thread of `pid` by id: its context switches so far, and whether it sleeps waiting for
    an event (state S), rather than running or waiting to (R) or blocked in the kernel (D)."""
    found = {}
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/status") as status:
            lines = status.read().splitlines()
        count = sum(int(line.split()[1]) for line in lines if "ctxt_switches" in line)
        found[task] = (count, any(line.startswith("State:") and line.split()[1] == "S" for line in lines))
    return found


def switches(pid):
    """Context switches of every thread of `pid` so far, by thread id."""
    return {task: count for task, (count, _) in threads(pid).items()}


def wait_until_quiet(pid, quiet=0.5, timeout=30):
    """Returns once every thread sleeps waiting for an event and none has run for `quiet` s."""
    deadline = time.monotonic() + timeout
    last, since = switches(pid), time.monotonic()
    while True:
        sample = threads(pid)
        now = {task: count for task, (count, _) in sample.items()}
        if now != last or not all(sleeping for _, sleeping in sample.values()):
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet:
            return
        if time.monotonic() > deadline:
            sys.exit(f"idle: gbnotifyd did not go quiet within {timeout} s")
        time.sleep(0.1)


def measure(binary, accounts, seconds, poll_interval, ca):
    home = tempfile.mkdtemp(prefix="gbnotify-idle-")
    try:
        os.makedirs(os.path.join(home, "config", "gbnotifyd"))
        with open(os.path.join(home, "config", "gbnotifyd", "config"), "w") as config:
            config.write(f"ca-file = {ca.trust_file}\n")
            if poll_interval is not None:
                config.write(f"poll-interval = {poll_interval}\n")
        readiness = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        readiness.bind(os.path.join(home, "notify"))
        readiness.settimeout(60)
        environment = dict(os.environ, XDG_CONFIG_HOME=os.path.join(home, "config"),
                           XDG_STATE_HOME=os.path.join(home, "state"), NOTIFY_SOCKET=os.path.join(home, "notify"))
        log_path = os.path.join(home, "log")
        with open(log_path, "w") as log:
            daemon = subprocess.Popen([binary, "--verbose"], env=environment, stdin=subprocess.DEVNULL,
                                      stdout=subprocess.DEVNULL, stderr=log)
        try:
            if not readiness.recv(4096).startswith(b"READY=1"):
                sys.exit(f"idle: {binary} said something else than READY=1")
            deadline = time.monotonic() + 60
            while open(log_path).read().count(": 200 ok") < accounts:
                if time.monotonic() > deadline:
                    sys.exit(f"idle: {binary} did not poll {accounts} accounts within 60 s")
                time.sleep(0.1)
            wait_until_quiet(daemon.pid)
            before = switches(daemon.pid)
            time.sleep(seconds)
            after = switches(daemon.pid)
            values = memory(daemon.pid)
            # A thread that ended in the window takes its count with it; one that began brings all of it.
            values["switches"] = sum(after.values()) - sum(count for task, count in before.items() if task in after)
            return values
        finally:
            daemon.send_signal(signal.SIGTERM)
            daemon.wait(timeout=30)
            readiness.close()
    finally:
        shutil.rmtree(home, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("builds", nargs="+", metavar="NAME=BINARY")
    parser.add_argument("--accounts", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--poll-interval", type=int, help="seconds (10 to 3600); the default config's 30 when not given")
    arguments = parser.parse_args()
    if not os.environ.get("PRIVATE_DESKTOP_SESSION"):
        sys.exit("idle: run inside scripts/desktop-session: it writes to the session's keyring")
    builds = [build.split("=", 1) for build in arguments.builds]

    ca = RunCA()
    users = [f"u{number:03d}" for number in range(arguments.accounts)]
    standin = Standin(ca, users)
    try:
        use_accounts(standin, [(standin.url, user) for user in users])
        results = {name: [] for name, _ in builds}
        for run in range(arguments.runs):
            for name, binary in builds:
                values = measure(binary, arguments.accounts, arguments.seconds, arguments.poll_interval, ca)
                results[name].append(values)
                print(f"run {run + 1} {name}: " + ", ".join(f"{field} {values[field]}" for field in FIELDS), flush=True)
        interval = arguments.poll_interval or 30
        print(f"median of {arguments.runs} runs, {arguments.accounts} accounts idle for {arguments.seconds:.0f} s, "
              f"polls every {interval} s (memory in KiB, context switches in the window):")
        for name, runs in results.items():
            print(f"  {name}: " + ", ".join(f"{field} {statistics.median(r[field] for r in runs):.0f}" for field in FIELDS))
    finally:
        standin.stop()
        ca.remove()


if __name__ == "__main__":
    main()
