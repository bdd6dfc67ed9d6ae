#!/usr/bin/env python3
"""A stand-in ntfy-compatible relay for gbnotify's tests and demos.

It serves the part of ntfy's API that gbnotifyd uses, and scripts the faults a
real relay and the network between can produce:

    GET  /TOPIC/json[?since=ID|UNIXTIME|all]   the subscription: chunked NDJSON,
         an "open" event, the retained messages after `since`, then new ones
         as they are published, and a "keepalive" every --keepalive seconds
    POST /TOPIC                                ntfy's publish: the body is the message

and a control API under /_relay/ (JSON in, JSON out):

    POST /_relay/publish   {"topic", "message"} -> {"id", "time"}; retained
    POST /_relay/send      {"topic", "text", "pad": N} -> {"subscribers": n}:
                           raw bytes (text, then N "x"s) to the topic's open
                           streams, not retained: garbage and oversized lines
    POST /_relay/config    {"keepalive": seconds, "token": "..." | null}
    POST /_relay/faults    {"kind": "disconnect", "after_messages": N}: the next
                           subscription of the topic sends N message lines, then
                           half of the next one, and drops the connection
                           {"kind": "stall"}: every open stream goes silent
                           (no keepalives, nothing) until the client leaves
    GET  /_relay/subscriptions/wait?count=N&timeout=S
                           waits for N subscriptions (refused ones too) since the
                           start (or reset):
                           {"subscriptions": [{"topic", "since", "authorization"}],
                            "timed_out": bool}
    GET  /_relay/streams/wait?open=N&timeout=S
                           waits until exactly N streams are open:
                           {"open_streams": n, "timed_out": bool}
    GET  /_relay/state     {"subscriptions": [...], "open_streams": n, "messages": n}
    GET  /_relay/sent      {"sent": [{"id", "monotonic"}]}: each message line written
                           to a stream, with this process's CLOCK_MONOTONIC seconds
                           just after the write (for benchmarks: from here on the
                           line is the client's)
    POST /_relay/reset     forgets messages, faults, subscriptions and config

Prints one JSON line, {"url": ..., "port": ...}, once it listens.
"""

import argparse
import http.server
import json
import queue
import random
import select
import signal
import socket
import ssl
import string
import sys
import threading
import time
import urllib.parse

from standin_server import ThreadedServer, compact_json, send_json, stop_when_orphaned, tls_context

TOPIC_CHARACTERS = set(string.ascii_letters + string.digits + "_-")
ID_CHARACTERS = string.ascii_letters + string.digits
BODY_CAP = 4 * 1024 * 1024
MAX_WAIT = 120.0


def valid_topic(topic):
    return 0 < len(topic) <= 64 and set(topic) <= TOPIC_CHARACTERS


class Stream:
    """One open subscription: what it still has to send, and whether it is stalled."""

    def __init__(self, topic):
        self.topic = topic
        self.outbox = queue.Queue()
        self.stalled = False


class Relay:
    """Messages, open streams, faults and the subscription log, behind one lock."""

    def __init__(self, keepalive):
        self.lock = threading.Condition()
        self.default_keepalive = keepalive
        self.reset()

    def reset(self):
        with self.lock:
            self.keepalive = self.default_keepalive
            self.token = None
            self.messages = []  # dicts in publish order
            self.sent = []  # {"id", "monotonic"} per message line written to a stream
            self.streams = set()
            self.disconnects = {}  # topic -> message lines to send before dropping
            self.subscriptions = []
            self.lock.notify_all()

    def publish(self, topic, message):
        with self.lock:
            event = {"id": "".join(random.choice(ID_CHARACTERS) for _ in range(12)),
                     "time": int(time.time()), "event": "message", "topic": topic,
                     "message": message}
            self.messages.append(event)
            line = compact_json(event) + b"\n"
            for stream in self.streams:
                if stream.topic == topic:
                    stream.outbox.put(("message", line))
            return event

    def send_raw(self, topic, data):
        with self.lock:
            targets = [stream for stream in self.streams if stream.topic == topic]
            for stream in targets:
                stream.outbox.put(("raw", data))
            return len(targets)

    def backlog(self, topic, since):
        """The retained lines a subscription with `since` starts with."""
        with self.lock:
            retained = [m for m in self.messages if m["topic"] == topic]
        if since is None:
            return []
        if since == "all":
            chosen = retained
        elif since.isdigit():
            chosen = [m for m in retained if m["time"] >= int(since)]
        else:
            ids = [m["id"] for m in retained]
            # An id the relay no longer knows replays everything: nothing may be lost.
            chosen = retained[ids.index(since) + 1:] if since in ids else retained
        return [compact_json(m) + b"\n" for m in chosen]


class RelayServer(ThreadedServer):
    def __init__(self, host, port, keepalive, tls_context=None):
        self.relay = Relay(keepalive)
        self.stopping = threading.Event()
        super().__init__(host, port, RelayHandler, tls_context)


class RelayHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "relay-standin"

    def log_message(self, format, *args):  # quiet: tests read the control API instead
        pass

    def setup(self):
        if isinstance(self.request, ssl.SSLSocket):
            try:
                self.request.do_handshake()
            except (ssl.SSLError, OSError):
                self.request.close()
                raise
        super().setup()

    # MARK: - Routing

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(url.query)
        if url.path == "/_relay/subscriptions/wait":
            return self.wait_for_subscriptions(query)
        if url.path == "/_relay/streams/wait":
            return self.wait_for_open_streams(query)
        if url.path == "/_relay/sent":
            relay = self.server.relay
            with relay.lock:
                return self.reply(200, {"sent": list(relay.sent)})
        if url.path == "/_relay/state":
            relay = self.server.relay
            with relay.lock:
                return self.reply(200, {"subscriptions": list(relay.subscriptions),
                                        "open_streams": len(relay.streams),
                                        "messages": len(relay.messages)})
        parts = url.path.split("/")
        if len(parts) == 3 and parts[2] == "json" and valid_topic(parts[1]):
            return self.subscribe(parts[1], query.get("since", [None])[0])
        self.reply(404, {"code": 40401, "http": 404, "error": "page not found"})

    def do_POST(self):
        url = urllib.parse.urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        if length > BODY_CAP:
            return self.reply(413, {"code": 41301, "http": 413, "error": "request too large"})
        body = self.rfile.read(length)
        if url.path.startswith("/_relay/"):
            try:
                request = json.loads(body or b"{}")
            except ValueError:
                return self.reply(400, {"error": "body must be JSON"})
            return self.control(url.path[len("/_relay/"):], request)
        topic = url.path[1:]
        if not valid_topic(topic):
            return self.reply(404, {"code": 40401, "http": 404, "error": "page not found"})
        if not self.authorized():
            return self.unauthorized()
        self.reply(200, self.server.relay.publish(topic, body.decode("utf-8", "replace")))

    def control(self, route, request):
        relay = self.server.relay
        if route == "publish":
            event = relay.publish(request["topic"], request["message"])
            return self.reply(200, {"id": event["id"], "time": event["time"]})
        if route == "send":
            data = request.get("text", "").encode() + b"x" * int(request.get("pad", 0))
            return self.reply(200, {"subscribers": relay.send_raw(request["topic"], data)})
        if route == "config":
            with relay.lock:
                if "keepalive" in request:
                    relay.keepalive = float(request["keepalive"])
                if "token" in request:
                    relay.token = request["token"]
            return self.reply(200, {})
        if route == "faults":
            with relay.lock:
                if request.get("kind") == "disconnect":
                    relay.disconnects[request["topic"]] = int(request["after_messages"])
                elif request.get("kind") == "stall":
                    for stream in relay.streams:
                        stream.stalled = True
                else:
                    return self.reply(400, {"error": "kind is disconnect or stall"})
            return self.reply(200, {})
        if route == "reset":
            relay.reset()
            return self.reply(200, {})
        self.reply(404, {"error": "no such control route"})

    def wait_for_subscriptions(self, query):
        relay = self.server.relay
        count = int(query.get("count", ["1"])[0])
        deadline = time.monotonic() + min(float(query.get("timeout", ["10"])[0]), MAX_WAIT)
        with relay.lock:
            while len(relay.subscriptions) < count and time.monotonic() < deadline:
                relay.lock.wait(deadline - time.monotonic())
            self.reply(200, {"subscriptions": list(relay.subscriptions),
                             "timed_out": len(relay.subscriptions) < count})

    def wait_for_open_streams(self, query):
        relay = self.server.relay
        count = int(query.get("open", ["0"])[0])
        deadline = time.monotonic() + min(float(query.get("timeout", ["10"])[0]), MAX_WAIT)
        with relay.lock:
            while len(relay.streams) != count and time.monotonic() < deadline:
                relay.lock.wait(deadline - time.monotonic())
            self.reply(200, {"open_streams": len(relay.streams), "timed_out": len(relay.streams) != count})

    # MARK: - Subscriptions

    def authorized(self):
        token = self.server.relay.token
        return token is None or self.headers.get("Authorization") == f"Bearer {token}"

    def unauthorized(self):
        self.reply(401, {"code": 40101, "http": 401, "error": "unauthorized"})

    def subscribe(self, topic, since):
        relay = self.server.relay
        with relay.lock:
            # Refused ones too: a test can count a client's attempts.
            relay.subscriptions.append({"topic": topic, "since": since,
                                        "authorization": self.headers.get("Authorization")})
            relay.lock.notify_all()
        if not self.authorized():
            return self.unauthorized()
        stream = Stream(topic)
        with relay.lock:
            drop_after = relay.disconnects.pop(topic, None)
            # Under the lock that publish takes: each message is in the backlog or the outbox.
            backlog = relay.backlog(topic, since)
            relay.streams.add(stream)
            relay.lock.notify_all()
        self.close_connection = True
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/x-ndjson; charset=utf-8")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.serve_stream(stream, backlog, drop_after)
        except OSError:
            pass  # the client went away
        finally:
            with relay.lock:
                relay.streams.discard(stream)
                relay.lock.notify_all()

    def serve_stream(self, stream, backlog, drop_after):
        relay = self.server.relay
        opened = {"id": "".join(random.choice(ID_CHARACTERS) for _ in range(12)),
                  "time": int(time.time()), "event": "open", "topic": stream.topic}
        self.send_chunk(compact_json(opened) + b"\n")
        pending = [("message", line) for line in backlog]
        last_sent = time.monotonic()
        while not self.server.stopping.is_set():
            if stream.stalled:
                if self.client_left(0.2):
                    return
                continue
            if pending:
                kind, data = pending.pop(0)
            else:
                try:
                    kind, data = stream.outbox.get(timeout=0.1)
                except queue.Empty:
                    if self.client_left(0):
                        return
                    if time.monotonic() - last_sent >= relay.keepalive:
                        keepalive = {"id": "".join(random.choice(ID_CHARACTERS) for _ in range(12)),
                                     "time": int(time.time()), "event": "keepalive",
                                     "topic": stream.topic}
                        self.send_chunk(compact_json(keepalive) + b"\n")
                        last_sent = time.monotonic()
                    continue
            if kind == "message" and drop_after is not None:
                if drop_after == 0:
                    # Half a line, then the connection ends without the chunked terminator.
                    self.send_chunk(data[:len(data) // 2])
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                drop_after -= 1
            self.send_chunk(data)
            last_sent = time.monotonic()
            if kind == "message":
                with relay.lock:
                    relay.sent.append({"id": json.loads(data)["id"], "monotonic": last_sent})

    def send_chunk(self, data):
        if data:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()

    def client_left(self, wait):
        """Whether the client closed its end (it never sends anything on a subscription)."""
        try:
            readable, _, _ = select.select([self.connection], [], [], wait)
            if not readable:
                return False
            return self.connection.recv(1, socket.MSG_PEEK) == b""
        except (OSError, ValueError):
            return True

    def reply(self, status, value):
        send_json(self, status, value)


def parse_arguments(argv):
    parser = argparse.ArgumentParser(description="A stand-in ntfy-compatible relay (see the docstring).")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--keepalive", type=float, default=45.0, metavar="SECONDS",
                        help="seconds between keepalive events on a quiet stream (default 45)")
    parser.add_argument("--tls-cert", metavar="FILE")
    parser.add_argument("--tls-key", metavar="FILE")
    parser.add_argument("--demo-topic", metavar="TOPIC",
                        help="print how to point gbnotifyd at this relay and publish to TOPIC")
    parser.add_argument("--demo-instance", metavar="URL", default="http://127.0.0.1:8417",
                        help="with --demo-topic: the gitbay the demo notice names (the demo stand-in's)")
    arguments = parser.parse_args(argv)
    if (arguments.tls_cert is None) != (arguments.tls_key is None):
        parser.error("--tls-cert and --tls-key go together")
    if arguments.keepalive <= 0:
        parser.error("--keepalive must be > 0")
    if arguments.demo_topic is not None and not valid_topic(arguments.demo_topic):
        parser.error("--demo-topic must be 1 to 64 letters, digits, '_' or '-'")
    return arguments


def announce_demo(url, topic, instance):
    payload = ('{"aps":{"alert":{"title":"krz/gitbay","body":"noor opened issue #77"}},'
               f'"path":"krz/gitbay/issues/77","instance":"{instance}","user":"demo"}}')
    print("\n".join([
        f"relay: an ntfy-compatible relay at {url}; point gbnotifyd at it with these lines in",
        "relay: ~/.config/gbnotifyd/config (then restart gbnotifyd, or send it SIGHUP):",
        f"    relay-url = {url}",
        f"    relay-topic = {topic}",
        "relay: then publish a notice for the demo account to it:",
        f"    curl -d '{payload}' {url}/{topic}",
    ]), file=sys.stderr, flush=True)


def main(argv=None):
    arguments = parse_arguments(argv)
    context = tls_context(arguments.tls_cert, arguments.tls_key) if arguments.tls_cert else None
    server = RelayServer(arguments.host, arguments.port, arguments.keepalive, context)
    stop = server.stopping
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    threading.Thread(target=stop_when_orphaned, args=(stop,), daemon=True).start()
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()
    print(json.dumps({"url": server.url, "port": server.server_address[1]}), flush=True)
    if arguments.demo_topic:
        announce_demo(server.url, arguments.demo_topic, arguments.demo_instance)
    stop.wait()
    server.shutdown()
    server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
