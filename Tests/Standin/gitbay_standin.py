#!/usr/bin/env python3
"""A stand-in gitbay server for gbnotify's tests and demos.

Prints one JSON line, {"url": ..., "port": ...}, once it listens; see README.md
beside this file for the API it serves and the /_standin/ control API.
"""

import argparse
import itertools
import json
import os
import signal
import sys
import threading

from standin_http import StandinServer
from standin_server import stop_when_orphaned, tls_context
from standin_model import KIND_SEGMENTS, Store

DEMO_USER = "demo"
# (repo, kind, actor, summary, number) for the seeded inbox and the notices that follow.
DEMO_NOTICES = [
    ("krz/gitbay", "issue", "cmc", "opened issue #12", 12),
    ("krz/gitbay", "mr", "alba", "opened merge request #31", 31),
    ("krz/gitbay", "build", "ci", "build #88 failed on main", 88),
    ("cmc/dotfiles", "issue", "noor", "commented on issue #4", 4),
    ("ops/infra", "mr", "tomasz", "approved merge request #7", 7),
    ("ops/infra", "build", "ci", "build #203 passed on release", 203),
]
DEMO_FOLLOW_UPS = [
    ("krz/gitbay", "issue", "noor", "opened issue #{n}"),
    ("ops/infra", "mr", "alba", "opened merge request #{n}"),
    ("krz/gitbay", "build", "ci", "build #{n} failed on main"),
    ("cmc/dotfiles", "mr", "cmc", "merged merge request #{n}"),
]


def parse_arguments(argv):
    parser = argparse.ArgumentParser(description="A stand-in gitbay server (see README.md).")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--tls-cert", metavar="FILE")
    parser.add_argument("--tls-key", metavar="FILE")
    parser.add_argument("--site-url", metavar="URL",
                        help="the configured site_url (default: this server's URL)")
    parser.add_argument("--demo", action="store_true",
                        help="seed a demo account and add a notice every --demo-interval s")
    parser.add_argument("--token-file", metavar="FILE",
                        help="with --demo: write the demo token here (mode 0600)")
    parser.add_argument("--demo-interval", type=float, default=20.0, metavar="SECONDS")
    arguments = parser.parse_args(argv)
    if (arguments.tls_cert is None) != (arguments.tls_key is None):
        parser.error("--tls-cert and --tls-key go together")
    if arguments.token_file and not arguments.demo:
        parser.error("--token-file needs --demo")
    if arguments.demo_interval <= 0:
        parser.error("--demo-interval must be > 0")
    return arguments


def write_private_file(path, text):
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as file:
        os.fchmod(file.fileno(), 0o600)
        file.write(text)


def seed_demo(store, token_file):
    store.add_user(DEMO_USER)
    token = store.mint_token(DEMO_USER)
    for repo, kind, actor, summary, number in DEMO_NOTICES:
        store.add_notice(DEMO_USER, repo=repo, kind=kind, actor=actor, summary=summary,
                         path=f"{repo}/{KIND_SEGMENTS[kind]}/{number}")
    if token_file:
        write_private_file(token_file, token + "\n")
    return token


def announce_demo(url, token, token_file, interval):
    lines = [f"demo: user {DEMO_USER!r} with a full API token: {token}"]
    if token_file:
        lines += [f"demo: the token is also in {token_file} (mode 0600)",
                  "demo: add the account with:",
                  f"    gbnotifyctl account add {url} < {token_file}"]
    else:
        lines += ["demo: add the account with:",
                  f"    printf '%s\\n' '{token}' | gbnotifyctl account add {url}"]
    lines += [f"demo: a new notice every {interval:g} s; the inbox is {url}/notifications",
              f"demo: script it further through {url}/_standin/ (see Tests/Standin/README.md)"]
    print("\n".join(lines), file=sys.stderr, flush=True)


def run_demo_notices(store, interval, stop):
    for step in itertools.count():
        if stop.wait(interval):
            return
        repo, kind, actor, summary = DEMO_FOLLOW_UPS[step % len(DEMO_FOLLOW_UPS)]
        number = 100 + step
        with store.lock:
            if DEMO_USER not in store.accounts:  # a test reset the stand-in
                continue
            store.add_notice(DEMO_USER, repo=repo, kind=kind, actor=actor,
                             summary=summary.format(n=number),
                             path=f"{repo}/{KIND_SEGMENTS[kind]}/{number}")


def main(argv=None):
    arguments = parse_arguments(argv)
    context = tls_context(arguments.tls_cert, arguments.tls_key) if arguments.tls_cert else None
    server = StandinServer(arguments.host, arguments.port, context)
    server.store = Store(site_url=arguments.site_url or server.url)

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    threading.Thread(target=stop_when_orphaned, args=(stop,), name="orphan-watch",
                     daemon=True).start()
    if arguments.demo:
        token = seed_demo(server.store, arguments.token_file)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1},
                     name="accept", daemon=True).start()
    print(json.dumps({"url": server.url, "port": server.server_address[1]}), flush=True)

    if arguments.demo:
        announce_demo(server.url, token, arguments.token_file, arguments.demo_interval)
        threading.Thread(target=run_demo_notices, name="demo", daemon=True,
                         args=(server.store, arguments.demo_interval, stop)).start()

    stop.wait()
    server.shutdown()
    server.faults.clear()  # releases stalled connections
    server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
