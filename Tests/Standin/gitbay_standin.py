#!/usr/bin/env python3
"""A stand-in gitbay server for gbnotify's tests and demos.

Prints one JSON line, {"url": ..., "port": ...}, once it listens; see README.md
beside this file for the API it serves and the /_standin/ control API.
"""

import argparse
import json
import signal
import sys
import threading

from standin_demo import announce_demo, run_demo_notices, seed_demo
from standin_http import StandinServer
from standin_server import stop_when_orphaned, tls_context
from standin_model import Store

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
    parser.add_argument("--demo-relay", metavar="URL",
                        help="with --demo: publish every other new notice to this ntfy relay")
    arguments = parser.parse_args(argv)
    if (arguments.tls_cert is None) != (arguments.tls_key is None):
        parser.error("--tls-cert and --tls-key go together")
    if arguments.token_file and not arguments.demo:
        parser.error("--token-file needs --demo")
    if arguments.demo_relay and not arguments.demo:
        parser.error("--demo-relay needs --demo")
    if arguments.demo_interval <= 0:
        parser.error("--demo-interval must be > 0")
    return arguments


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
        relay = arguments.demo_relay.rstrip("/") if arguments.demo_relay else None
        announce_demo(server.url, token, arguments.token_file, arguments.demo_interval, relay)
        threading.Thread(target=run_demo_notices, name="demo", daemon=True,
                         args=(server.store, arguments.demo_interval, stop, relay)).start()

    stop.wait()
    server.shutdown()
    server.faults.clear()  # releases stalled connections
    server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
