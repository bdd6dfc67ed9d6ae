#!/usr/bin/python3
"""The gitbay stand-in (Tests/Standin) behind TLS, as `make bench` runs it: the stand-in's own
HTTPS server, with two things a benchmark needs and a test does not.

    tls_standin.py --cert FILE --key FILE [--hosts 127.0.0.1,...] [--port 0]
                   [--idle-close SECONDS] [--no-resumption]

- `--hosts`: the loopback addresses it answers on, each on the same port and each an instance of
  its own to a client (its own connections, its own TLS sessions), all with one database, one
  request log and one series of connection numbers. The certificate must name them all.
- `--idle-close SECONDS`: a connection that sends no request for that long is closed, as a
  server with a short keep-alive timeout does (Apache's default is 5 s). Without it,
  connections stay open as long as the client keeps them.
- `--no-resumption`: no TLS 1.3 session tickets are issued, so every handshake is a full one
  (certificate, signature and key exchange); by default two tickets follow each handshake, as
  OpenSSL (and so nginx and Apache) sends them.
- Every TLS handshake is noted: its connection's serial (the one the stand-in's request log
  names), whether the client resumed an earlier session (an abbreviated handshake) or made a
  full one, the TLS version, and the CLOCK_MONOTONIC time it finished. `GET /_bench/handshakes`
  answers {"handshakes": [...]}; `POST /_bench/handshakes/clear` forgets them.

Everything else is the stand-in's, unchanged: its API, its control API under /_standin/, its
ready line on stdout (with "urls", one for each host, added), its request log.
"""

import argparse
import json
import os
import signal
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Tests", "Standin"))

from standin_http import StandinHandler, StandinServer  # noqa: E402
from standin_model import Store  # noqa: E402
from standin_server import send_json, stop_when_orphaned, tls_context  # noqa: E402


class Handshakes:
    def __init__(self):
        self.lock = threading.Lock()
        self.entries = []

    def add(self, entry):
        with self.lock:
            self.entries.append(entry)

    def list(self):
        with self.lock:
            return list(self.entries)

    def clear(self):
        with self.lock:
            self.entries.clear()


HANDSHAKES = Handshakes()


class BenchHandler(StandinHandler):
    """The stand-in's handler, its handshakes noted and (with --idle-close) its idle
    connections closed: `timeout` is the socket timeout socketserver sets on each connection,
    and http.server closes a connection whose next request does not come within it."""

    timeout = None

    def handle(self):
        try:
            self.connection.do_handshake()
        except (OSError, ValueError):
            return
        HANDSHAKES.add({"connection": self.serial, "resumed": self.connection.session_reused,
                        "version": self.connection.version(), "monotonic": time.monotonic()})
        # The stand-in's own handle() asks for the handshake again, which is then a no-op.
        super().handle()

    def do_GET(self):
        if self.path == "/_bench/handshakes":
            send_json(self, 200, {"handshakes": HANDSHAKES.list()})
        elif self.path == "/_bench/handshakes/clear":
            HANDSHAKES.clear()
            send_json(self, 200, {})
        else:
            super().do_GET()

    do_POST = do_GET


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hosts", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--idle-close", type=float, metavar="SECONDS")
    parser.add_argument("--no-resumption", action="store_true")
    arguments = parser.parse_args()

    BenchHandler.timeout = arguments.idle_close
    context = tls_context(arguments.cert, arguments.key)
    if arguments.no_resumption:
        context.num_tickets = 0
    servers = []
    port = arguments.port
    for host in arguments.hosts.split(","):
        server = StandinServer(host, port, context)
        server.RequestHandlerClass = BenchHandler
        if servers:
            first = servers[0]
            server.store, server.requests, server.faults = first.store, first.requests, first.faults
            server.connection_serial = first.connection_serial
        else:
            port = server.server_address[1]
            server.store = Store(site_url=server.url)
        servers.append(server)

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    threading.Thread(target=stop_when_orphaned, args=(stop,), daemon=True).start()
    for server in servers:
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()
    print(json.dumps({"url": servers[0].url, "port": port, "urls": [server.url for server in servers]}), flush=True)
    stop.wait()
    for server in servers:
        server.shutdown()
    servers[0].faults.clear()  # releases stalled connections
    for server in servers:
        server.server_close()


if __name__ == "__main__":
    main()
