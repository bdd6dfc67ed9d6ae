#!/usr/bin/env python3
"""nghttpx (Debian's nghttp2-proxy) as the TLS front of a stand-in, as a reverse proxy stands in
front of a real gitbay instance: TLS ends here, with ALPN offering `h2` and `http/1.1` (or what
--alpn says), and every request goes on to the stand-in over plain HTTP/1.1.

    http2_front.py --backend PORT --cert FILE --key FILE --access-log FILE
                   [--hosts 127.0.0.1,...] [--port N] [--alpn h2,http/1.1] [--max-requests N]

- `--hosts`: the loopback addresses it listens on, all on one port (an instance each to a client).
- `--port`: 0 (the default) picks a free one; a front restarted in a test asks for the port the
  one before had.
- `--access-log`: one line per request, `REMOTE_ADDR REMOTE_PORT ALPN TLS_REUSED STATUS METHOD
  PATH` (`ACCESS_LOG_FORMAT`); a client connection is one (address, port), one TLS handshake
  each, and `TLS_REUSED` is `r` for a resumed session, `.` for a full handshake.
- `--max-requests N`: a connection takes N requests, then nghttpx sends GOAWAY on it (a request
  still under way finishes), as a server that retires connections does.

Prints one JSON line, {"url": ..., "port": ..., "urls": [...]}, once nghttpx accepts
connections; stops nghttpx when terminated or when its parent goes away.
"""

import argparse
import ctypes
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time

from standin_server import stop_when_orphaned

ACCESS_LOG_FORMAT = "$remote_addr $remote_port $alpn $tls_session_reused $status $method $path"
PR_SET_PDEATHSIG = 1


def free_port(host):
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


def die_with_parent():
    """nghttpx gets SIGTERM when this script dies, however it dies."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def accepts(host, port):
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


def start(arguments, hosts, port):
    argv = ["nghttpx", "--conf=/dev/null", "--single-process", "--workers=1", "--no-ocsp",
            "--no-via", f"--backend=127.0.0.1,{arguments.backend};;proto=http/1.1",
            f"--npn-list={arguments.alpn}",
            f"--accesslog-file={arguments.access_log}", f"--accesslog-format={ACCESS_LOG_FORMAT}",
            "--errorlog-file=/dev/stderr", "--backend-keep-alive-timeout=600",
            "--frontend-keep-alive-timeout=600", "--frontend-http2-read-timeout=600",
            "--frontend-read-timeout=600"]
    argv += [f"--frontend={host},{port}" for host in hosts]
    if arguments.max_requests:
        argv.append(f"--frontend-max-requests={arguments.max_requests}")
    argv += [arguments.key, arguments.cert]
    return subprocess.Popen(argv, stdin=subprocess.DEVNULL, preexec_fn=die_with_parent)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", type=int, required=True, metavar="PORT")
    parser.add_argument("--hosts", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--access-log", required=True, metavar="FILE")
    parser.add_argument("--alpn", default="h2,http/1.1")
    parser.add_argument("--max-requests", type=int, metavar="N")
    arguments = parser.parse_args()
    hosts = arguments.hosts.split(",")

    # A free port can be taken between the probe and nghttpx's bind: then nghttpx exits, and a
    # new port is tried.
    for _ in range(5):
        port = arguments.port or free_port(hosts[0])
        front = start(arguments, hosts, port)
        deadline = time.monotonic() + 30
        while front.poll() is None and time.monotonic() < deadline and not accepts(hosts[0], port):
            time.sleep(0.02)
        if front.poll() is None and accepts(hosts[0], port):
            break
        front.kill()
        front.wait()
        if arguments.port:
            sys.exit(f"nghttpx did not listen on port {port}")
    else:
        sys.exit("nghttpx did not start")

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    threading.Thread(target=stop_when_orphaned, args=(stop,), daemon=True).start()
    threading.Thread(target=lambda: (front.wait(), stop.set()), daemon=True).start()
    urls = [f"https://{f'[{host}]' if ':' in host else host}:{port}" for host in hosts]
    print(json.dumps({"url": urls[0], "port": port, "urls": urls}), flush=True)
    stop.wait()
    front.terminate()
    try:
        front.wait(10)
    except subprocess.TimeoutExpired:
        front.kill()
        front.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
