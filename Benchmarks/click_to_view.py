"""Time from a click on a notice to the terminal view's first frame, and to the item drawn.

    scripts/desktop-session python3 Benchmarks/click_to_view.py --bin .build/release [--clicks 20]

Inside a desktop session (a session bus, gnome-keyring, dunst on Xvfb): the gitbay stand-in with
one account and one issue, gbnotifyd from --bin with `open-with = terminal` and a terminal that
is tmux (a stub that starts the command in a new tmux session and watches its output). Each
round adds a notice of the issue and wakes the daemon (gbnotifyctl deliver), clicks the
notification (`dunstctl action 0`), and times, on CLOCK_MONOTONIC:

- click: dunst's ActionInvoked signal on the bus (seen by dbus-monitor);
- first frame: the first bytes the view writes to its terminal (the "Loading" frame);
- item: the bytes with the issue's title (the frame with the item read from the stand-in).

What lies between is all of it: gbnotifyd hearing the signal and launching the terminal stub,
tmux starting a session (a real terminal emulator takes longer to open its window), gbnotifyctl
starting, reading the keyring and the stand-in.
"""

import argparse
import json
import os
import select
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TITLE = "Click-to-view benchmark issue"


def control(url, route, body):
    request = urllib.request.Request(f"{url}/_standin/{route}", json.dumps(body).encode(),
                                     {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as reply:
        return json.load(reply)


def wait_until(what, condition, timeout=30):
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            sys.exit(f"click_to_view: {what} did not happen within {timeout} s")
        time.sleep(0.01)  # polling a state no event announces (dunst's count)


def displayed():
    out = subprocess.run(["dunstctl", "count", "displayed"], capture_output=True, text=True).stdout
    return int(out.strip() or 0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, help="directory of gbnotifyd and gbnotifyctl")
    parser.add_argument("--clicks", type=int, default=20)
    arguments = parser.parse_args()
    if "PRIVATE_DESKTOP_SESSION" not in os.environ:
        sys.exit("click_to_view: run it inside scripts/desktop-session")
    bin_dir = os.path.abspath(arguments.bin)
    work = tempfile.mkdtemp(prefix="click-to-view-")
    socket = f"click-to-view-{os.getpid()}"
    tmux = ["tmux", "-u", "-f", "/dev/null", "-L", socket]
    children = []
    try:
        # The stand-in, its user and the issue every notice is of.
        standin = subprocess.Popen([sys.executable, f"{ROOT}/Tests/Standin/gitbay_standin.py", "--port", "0"],
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        children.append(standin)
        url = json.loads(standin.stdout.readline())["url"]
        control(url, "users", {"username": "cmc"})
        token = control(url, "tokens", {"username": "cmc"})["token"]
        control(url, "items", {"kind": "issue", "repo": "krz/bench", "data": {
            "number": 1, "title": TITLE, "state": "open", "author": "cmc", "body": "Timed.",
            "body_format": "md"}})
        subprocess.run([f"{bin_dir}/gbnotifyctl", "account", "add", url], input=token, text=True,
                       check=True, capture_output=True)

        # The terminal: a new tmux session per click, its output copied to a FIFO read here,
        # the command held until the copying runs, so that no byte is missed.
        for fifo in ("output", "go"):
            os.mkfifo(f"{work}/{fifo}")
        output = os.open(f"{work}/output", os.O_RDWR | os.O_NONBLOCK)
        go = os.open(f"{work}/go", os.O_RDWR)
        with open(f"{work}/wrapper.sh", "w") as file:
            file.write(f'read go < "{work}/go"; exec "$@"\n')
        with open(f"{work}/terminal", "w") as file:
            file.write("#!/bin/sh\n"
                       f"{' '.join(tmux)} new-session -d -s click$$ -x 100 -y 30 sh {work}/wrapper.sh \"$@\"\n"
                       f"{' '.join(tmux)} pipe-pane -t click$$ -O 'cat >> {work}/output'\n"
                       f"echo go > {work}/go\n")
        os.chmod(f"{work}/terminal", 0o755)
        subprocess.run(tmux + ["new-session", "-d", "-s", "keep", "sleep", "3600"], check=True)
        config_dir = os.path.join(os.environ["XDG_CONFIG_HOME"], "gbnotifyd")
        os.makedirs(config_dir, exist_ok=True)
        with open(f"{config_dir}/config", "w") as file:
            file.write(f"open-with = terminal\nterminal = {work}/terminal\n")

        monitor = subprocess.Popen(
            ["stdbuf", "-oL", "dbus-monitor", "--session",
             "type='signal',interface='org.freedesktop.Notifications',member='ActionInvoked'"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        children.append(monitor)
        daemon = subprocess.Popen([f"{bin_dir}/gbnotifyd"], stderr=open(f"{work}/gbnotifyd.log", "w"))
        children.append(daemon)
        subprocess.run(["gdbus", "wait", "--session", "--timeout", "30", "org.gitbay.Notify1"], check=True)
        wake = json.dumps({"instance": url, "user": "cmc"})
        # The first poll sees an empty inbox, so every notice after it is new (not a summary).
        def polled():
            with urllib.request.urlopen(f"{url}/_standin/requests", timeout=10) as reply:
                return any(r["query_argv"] == ["notifications", "list"] and r["status"] == 200
                           for r in json.load(reply)["requests"])
        wait_until("the first poll", polled)

        rounds = []
        for _ in range(arguments.clicks):
            subprocess.run(["dunstctl", "close-all"], check=True)
            control(url, "notifications", {"username": "cmc", "repo": "krz/bench", "path": "krz/bench/issues/1"})
            subprocess.run([f"{bin_dir}/gbnotifyctl", "deliver"], input=wake, text=True, capture_output=True)
            wait_until("the notice on screen", lambda: displayed() >= 1)
            # Whatever the last round's view wrote as it was hung up is not this round's.
            while select.select([output], [], [], 0.2)[0]:
                os.read(output, 65536)
            subprocess.run(["dunstctl", "action", "0"], check=True)
            clicked = None
            while clicked is None:
                line = monitor.stdout.readline().decode()
                if "member=ActionInvoked" in line:
                    clicked = time.monotonic()
            first = item = None
            seen = b""
            deadline = time.monotonic() + 30
            while item is None and time.monotonic() < deadline:
                ready, _, _ = select.select([output], [], [], 1)
                if not ready:
                    continue
                chunk = os.read(output, 65536)
                now = time.monotonic()
                first = first or now
                seen += chunk
                if TITLE.encode() in seen:
                    item = now
            if item is None:
                with open(f"{work}/gbnotifyd.log") as log:
                    sys.exit(f"click_to_view: the view did not draw the item within 30 s; gbnotifyd's log:\n{log.read()}")
            rounds.append((first - clicked, item - clicked))
            sessions = subprocess.run(tmux + ["list-sessions", "-F", "#{session_name}"],
                                      capture_output=True, text=True).stdout.split()
            for session in sessions:
                if session.startswith("click"):
                    subprocess.run(tmux + ["kill-session", "-t", session])

        def summary(values):
            values = sorted(value * 1000 for value in values)
            p90 = values[min(len(values) - 1, int(len(values) * 0.9))]
            return f"median {statistics.median(values):.1f} ms, p90 {p90:.1f} ms, min {values[0]:.1f} ms, max {values[-1]:.1f} ms"

        print(f"{len(rounds)} clicks, {bin_dir}")
        print(f"click -> first frame (Loading): {summary([r[0] for r in rounds])}")
        print(f"click -> item drawn:            {summary([r[1] for r in rounds])}")
        os.close(go)
        os.close(output)
    finally:
        subprocess.run(tmux + ["kill-server"], capture_output=True)
        for child in reversed(children):
            child.terminate()
            child.wait()


if __name__ == "__main__":
    main()
