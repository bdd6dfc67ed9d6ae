#!/usr/bin/env python3
"""A stand-in ntfy-compatible relay for gbnotify's tests and demos.

It serves the part of ntfy's API that gbnotifyd uses, as ntfy v2.13 does it, and scripts
the faults a real relay and the network between can produce:

    GET  /T1,T2,.../json[?since=ID|UNIXTIME|all]
         one subscription to every listed topic (one topic is the list of one): chunked
         NDJSON, an "open" event, the retained messages after `since`, then new ones as
         they are published, and a "keepalive" every --keepalive seconds. "open" and
         "keepalive" carry the list as requested ("topic": "T1,T2"); each "message" carries
         the one topic it was published to. A topic is 1 to 64 letters, digits, "_" or "-";
         a list with a bad or empty entry is ntfy's 404 {"code": 40401, ...}. No limit on
         how many topics one subscription lists. `since`:
           ID        the messages published after that one, whichever topic it was on
                     (ids name places in one relay-wide order); an id the relay does not
                     know (expired, or never seen) replays everything retained
           UNIXTIME  the messages of each listed topic with time >= UNIXTIME
           all       everything retained on the listed topics
           absent    nothing old, only what comes next
         The backlog is ntfy's: each topic's messages in (time, publication) order, the
         topics' lists joined in the order listed, then sorted by time (whole seconds)
         alone, stably. Across topics that is publication order only down to the second:
         within one second, the first listed topic's messages come first. A topic listed
         twice is subscribed twice, as in ntfy: its messages come twice.
    POST /TOPIC                                ntfy's publish: the body is the message

and a control API under /_relay/ (JSON in, JSON out; bad input is a 400 {"error"}):

    POST /_relay/publish   {"topic", "message", "time"?} -> {"id", "time"}; retained.
                           `time` (Unix seconds, default now) lets a test order messages
                           by time without waiting for the clock
    POST /_relay/send      {"topic", "text", "pad": N} -> {"subscribers": n}:
                           raw bytes (text, then N "x"s) once to every open stream whose
                           topics include TOPIC, not retained: garbage and oversized lines
    POST /_relay/config    {"keepalive": seconds, "token": "..." | null}
    POST /_relay/faults    {"kind": "disconnect", "topic", "after_messages": N}: the next
                           subscription whose topics include TOPIC sends N message lines
                           (of any of its topics), then half of the next one, and drops
                           the connection (armed faults are taken oldest first, one per
                           subscription)
                           {"kind": "stall", "topic"?}: every open stream whose topics
                           include TOPIC (every open stream, without one) goes silent
                           (no keepalives, nothing) until the client leaves
                           {"kind": "drop", "topic"?}: every open stream whose topics
                           include TOPIC (every open stream, without one) ends now, as
                           when the relay restarts: the connection is shut down
                           {"kind": "silent_head", "count": N}: the next N subscriptions
                           are read and counted, then answered with nothing at all (no
                           status line) until the client leaves
    GET  /_relay/subscriptions/wait?count=N&timeout=S
                           waits for N subscriptions (refused ones too) since the
                           start (or reset):
                           {"subscriptions": [{"topic": "T1,T2", "topics": ["T1", "T2"],
                                               "since", "authorization"}],
                            "timed_out": bool}
    GET  /_relay/streams/wait?open=N&timeout=S
                           waits until exactly N streams are open:
                           {"open_streams": n, "timed_out": bool}
    GET  /_relay/state     {"subscriptions": [...], "open_streams": n, "messages": n}
    GET  /_relay/sent      {"sent": [{"id", "monotonic"}]}: each message line written
                           to a stream, with this process's CLOCK_MONOTONIC seconds
                           just before the write (for benchmarks: the line is on its
                           way; the client may act on it before the write returns)
    POST /_relay/reset     forgets messages, faults, subscriptions and config

Prints one JSON line, {"url": ..., "port": ...}, once it listens.
"""

import argparse
import http.server
import json
import queue
import random
import re
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

# ntfy's topicRegex and jsonPathRegex (server/server.go).
TOPIC = re.compile(r"[-_A-Za-z0-9]{1,64}")
TOPIC_LIST = re.compile(r"[-_A-Za-z0-9]{1,64}(,[-_A-Za-z0-9]{1,64})*")
ID_CHARACTERS = string.ascii_letters + string.digits
ID_LENGTH = 12
BODY_CAP = 4 * 1024 * 1024
MAX_WAIT = 120.0
NOT_FOUND = {"code": 40401, "http": 404, "error": "page not found"}


def valid_topic(topic):
    return isinstance(topic, str) and TOPIC.fullmatch(topic) is not None


def new_id():
    return "".join(random.choice(ID_CHARACTERS) for _ in range(ID_LENGTH))


def is_message_id(value):
    """ntfy's validMessageID, which parseSince tries before a number."""
    return len(value) == ID_LENGTH and set(value) <= set(ID_CHARACTERS)


class BadControl(Exception):
    """A control request the stand-in cannot act on: answered 400 with this text."""


def topic_field(request):
    topic = request.get("topic")
    if not valid_topic(topic):
        raise BadControl("topic must be one topic: 1 to 64 letters, digits, '_' or '-'")
    return topic


class Stream:
    """One open subscription: what it still has to send, and whether it is stalled."""

    def __init__(self, requested, topics):
        self.requested = requested  # the comma list as given: the topic of "open" and "keepalive"
        self.topics = topics  # as listed, repeats kept: ntfy subscribes once per entry
        self.outbox = queue.Queue()
        self.stalled = False
        self.dropped = False
        # Held while a write is decided and made, and by a stall: once the stall answers,
        # nothing more leaves.
        self.gate = threading.Lock()


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
            self.messages = []  # dicts in publish order: the index is ntfy's rowid
            self.sent = []  # {"id", "monotonic"} per message line written to a stream
            self.streams = set()
            self.disconnects = {}  # topic -> message lines to send before dropping; oldest first
            self.silent_heads = 0  # subscriptions still to answer with nothing
            self.subscriptions = []
            self.lock.notify_all()

    def publish(self, topic, message, at=None):
        with self.lock:
            event = {"id": new_id(), "time": int(time.time()) if at is None else at,
                     "event": "message", "topic": topic, "message": message}
            self.messages.append(event)
            line = compact_json(event) + b"\n"
            for stream in self.streams:
                for listed in stream.topics:
                    if listed == topic:
                        stream.outbox.put(("message", line))
            return event

    def send_raw(self, topic, data):
        with self.lock:
            targets = [stream for stream in self.streams if topic in stream.topics]
            for stream in targets:
                stream.outbox.put(("raw", data))
            return len(targets)

    def take_disconnect(self, topics):
        """The oldest armed disconnect for any of `topics`, disarmed; None when there is none."""
        for topic in self.disconnects:
            if topic in topics:
                return self.disconnects.pop(topic)
        return None

    def backlog(self, topics, since):
        """The retained lines a subscription with `since` starts with, chosen and ordered as
        ntfy's sendOldMessages and messageCache.Messages do. Call with the lock held."""
        if since is None:
            return []
        rows = list(enumerate(self.messages))
        if since == "all":
            after = lambda row: True
        elif is_message_id(since):
            # The id names a place in the relay-wide order (ntfy's rowid), whichever topic its
            # message was on; an id ntfy does not know (any more) replays everything.
            known = [index for index, message in rows if message["id"] == since]
            after = (lambda row: row[0] > known[0]) if known else (lambda row: True)
        elif since.isdigit():
            after = lambda row: row[1]["time"] >= int(since)
        else:
            # ntfy answers 400 40008 here, or reads a duration such as 10m; gbnotifyd sends
            # only ids and times, and the stand-in replays everything, as for an unknown id.
            after = lambda row: True
        retained = {topic: [] for topic in topics}
        for row in rows:
            if row[1]["topic"] in retained and after(row):
                retained[row[1]["topic"]].append(row)
        chosen = []
        for topic in topics:  # a topic listed twice comes twice
            chosen += sorted(retained[topic], key=lambda row: (row[1]["time"], row[0]))
        # Python's sort is stable; Go's sort.Slice is for up to 12 rows (insertion sort) and
        # may leave ties in any order beyond, so this is one order ntfy can give.
        chosen.sort(key=lambda row: row[1]["time"])
        return [compact_json(message) + b"\n" for _, message in chosen]


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
        # Matched on the decoded path, as ntfy matches r.URL.Path: %2C is a comma.
        parts = urllib.parse.unquote(url.path).split("/")
        if len(parts) == 3 and parts[2] == "json" and TOPIC_LIST.fullmatch(parts[1]):
            return self.subscribe(parts[1], query.get("since", [None])[0])
        self.reply(404, NOT_FOUND)

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
        topic = urllib.parse.unquote(url.path)[1:]
        if not valid_topic(topic):
            return self.reply(404, NOT_FOUND)
        if not self.authorized():
            return self.unauthorized()
        self.reply(200, self.server.relay.publish(topic, body.decode("utf-8", "replace")))

    def control(self, route, request):
        try:
            if not isinstance(request, dict):
                raise BadControl("the body must be a JSON object")
            answer = self.run_control(route, request)
        except BadControl as error:
            return self.reply(400, {"error": str(error)})
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            return self.reply(400, {"error": f"bad or missing field: {error}"})
        if answer is None:
            return self.reply(404, {"error": "no such control route"})
        self.reply(200, answer)

    def run_control(self, route, request):
        """The answer to a control request; None for an unknown route."""
        relay = self.server.relay
        if route == "publish":
            message = request["message"]
            at = request.get("time")
            if not isinstance(message, str):
                raise BadControl("message must be a string")
            if at is not None and (type(at) is not int or at < 0):
                raise BadControl("time must be Unix seconds, a whole number >= 0")
            event = relay.publish(topic_field(request), message, at)
            return {"id": event["id"], "time": event["time"]}
        if route == "send":
            data = request.get("text", "").encode() + b"x" * int(request.get("pad", 0))
            return {"subscribers": relay.send_raw(topic_field(request), data)}
        if route == "config":
            with relay.lock:
                if "keepalive" in request:
                    relay.keepalive = float(request["keepalive"])
                if "token" in request:
                    relay.token = request["token"]
            return {}
        if route == "faults":
            kind = request.get("kind")
            if kind == "disconnect":
                topic, count = topic_field(request), int(request["after_messages"])
                with relay.lock:
                    relay.disconnects[topic] = count
            elif kind == "stall":
                topic = topic_field(request) if "topic" in request else None
                with relay.lock:
                    for stream in relay.streams:
                        if topic is None or topic in stream.topics:
                            with stream.gate:
                                stream.stalled = True
            elif kind == "drop":
                topic = topic_field(request) if "topic" in request else None
                with relay.lock:
                    for stream in relay.streams:
                        if topic is None or topic in stream.topics:
                            stream.dropped = True
            elif kind == "silent_head":
                count = request.get("count")
                if type(count) is not int or count < 0:
                    raise BadControl("count must be a whole number >= 0")
                with relay.lock:
                    relay.silent_heads = count
            else:
                raise BadControl("kind is disconnect, stall, drop or silent_head")
            return {}
        if route == "reset":
            relay.reset()
            return {}
        return None

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

    def subscribe(self, requested, since):
        relay = self.server.relay
        topics = requested.split(",")
        with relay.lock:
            # Refused ones too: a test can count a client's attempts.
            relay.subscriptions.append({"topic": requested, "topics": topics, "since": since,
                                        "authorization": self.headers.get("Authorization")})
            relay.lock.notify_all()
        with relay.lock:
            silent = relay.silent_heads > 0
            relay.silent_heads -= 1 if silent else 0
        if silent:
            # Accepted and read, never answered: a relay that hangs before its head.
            self.close_connection = True
            try:
                while self.rfile.read(1):
                    pass
            except OSError:
                pass
            return
        if not self.authorized():
            return self.unauthorized()
        stream = Stream(requested, topics)
        with relay.lock:
            drop_after = relay.take_disconnect(topics)
            # Under the lock that publish takes: each message is in the backlog or the outbox.
            backlog = relay.backlog(topics, since)
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
        self.send_chunk(compact_json(self.list_event("open", stream)) + b"\n")
        pending = [("message", line) for line in backlog]
        last_sent = time.monotonic()
        while not self.server.stopping.is_set():
            if stream.dropped:
                self.connection.shutdown(socket.SHUT_RDWR)
                return
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
                    if time.monotonic() - last_sent < relay.keepalive:
                        continue
                    kind, data = "keepalive", compact_json(self.list_event("keepalive", stream)) + b"\n"
            # A message's moment is noted before its write: the daemon can read the line and act
            # on it before the write returns here.
            writing = time.monotonic()
            with stream.gate:
                if stream.stalled:
                    continue  # stalled while this waited: it is never sent
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
                    relay.sent.append({"id": json.loads(data)["id"], "monotonic": writing})

    @staticmethod
    def list_event(kind, stream):
        """An "open" or "keepalive" event: ntfy gives it the topic list as requested."""
        return {"id": new_id(), "time": int(time.time()), "event": kind, "topic": stream.requested}

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
    parser.add_argument("--demo", action="store_true",
                        help="print how to point gbnotifyd at this relay and wake the demo account through it")
    parser.add_argument("--demo-instance", metavar="URL", default="http://127.0.0.1:8417",
                        help="with --demo: the gitbay of the demo account (the demo stand-in's)")
    arguments = parser.parse_args(argv)
    if (arguments.tls_cert is None) != (arguments.tls_key is None):
        parser.error("--tls-cert and --tls-key go together")
    if arguments.keepalive <= 0:
        parser.error("--keepalive must be > 0")
    return arguments


# What `make demo` prints. Each account listens on a topic of its own, its device token, which
# exists once the account is added: the command to wake the demo account reads it from
# `gbnotifyctl account list --json`.
def announce_demo(url, instance):
    payload = f'{{"instance":"{instance}","user":"demo"}}'
    topic = """$(gbnotifyctl account list --json | jq -r '.[] | select(.user == "demo") | .topic')"""
    print("\n".join([
        f"relay: an ntfy-compatible relay at {url}; point gbnotifyd at it with this line in",
        "relay: ~/.config/gbnotifyd/config (then restart gbnotifyd, or send it SIGHUP):",
        f"    relay-url = {url}",
        "relay: then a message on the demo account's topic makes it poll now:",
        f'    curl -d \'{payload}\' "{url}/{topic}"',
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
    if arguments.demo:
        announce_demo(server.url, arguments.demo_instance)
    stop.wait()
    server.shutdown()
    server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
