"""What the gitbay stand-in and the relay stand-in share: a threaded HTTP(S)
server on IPv4 or IPv6, compact JSON, and the lifeline that stops a stand-in
once the test process that started it is gone."""

import json
import os
import socket
import socketserver
import ssl
import sys


def compact_json(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def send_json(handler, status, value):
    """Answers an HTTP request with `value` as compact JSON."""
    body = compact_json(value)
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def tls_context(cert, key):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    return context


def stop_when_orphaned(stop):
    """Stops the server once its parent goes away, so a crashed test leaves no server behind."""
    parent = os.getppid()
    while not stop.wait(1.0):
        if os.getppid() != parent:
            print("parent process gone; stopping", file=sys.stderr, flush=True)
            stop.set()


class ThreadedServer(socketserver.ThreadingTCPServer):
    """One thread per connection; HTTPS when given a TLS context, with the
    handshake left to the connection's own thread (the handler's job)."""

    daemon_threads = True
    allow_reuse_address = True
    block_on_close = False

    def __init__(self, host, port, handler, tls_context=None):
        self.address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.tls_context = tls_context
        super().__init__((host, port), handler)

    @property
    def url(self):
        host, port = self.server_address[:2]
        shown = f"[{host}]" if ":" in host else host
        return f"{'https' if self.tls_context else 'http'}://{shown}:{port}"

    def get_request(self):
        connection, address = self.socket.accept()
        # Headers and body leave in separate writes; without this, Nagle's
        # algorithm and the client's delayed ACK add 40 ms to many answers.
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if self.tls_context is not None:
            connection = self.tls_context.wrap_socket(connection, server_side=True,
                                                      do_handshake_on_connect=False)
        return connection, address
