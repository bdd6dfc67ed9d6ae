"""The HTTP side: the gitbay API, the web pages, faults and the request log.

Each request is read in full, logged, checked against the armed faults, then
answered. An answer is built as an `Answer` first and written by `_send`, so a
fault can reshape the bytes of a normal answer (drip, truncate, pad, bad gzip).
"""

import dataclasses
import gzip
import html
import http.server
import ipaddress
import json
import re
import select
import socket
import ssl
import sys
import threading
import time
import urllib.parse

import standin_commands as commands
import standin_control
from standin_ssh import SSHFaults
from standin_faults import FaultBook, RequestLog
from standin_server import ThreadedServer, compact_json

BODY_CAP = 1024 * 1024
# How much of an oversized body is read and thrown away so the client can
# finish sending and see the 400, rather than a reset mid-upload.
DRAIN_LIMIT = 16 * 1024 * 1024
LOGGED_BODY_TEXT = 64 * 1024
PROTOCOL_VERSION = 1

MISSING_TOKEN = "missing bearer token; mint one over SSH: token create --name <n>"
INVALID_TOKEN = "invalid or expired token"
BAD_BODY = 'body must be JSON: {"argv": [...], "stdin": "..."}'
ARGV_REQUIRED = "argv is required"
BUSY = "server busy; retry later"
WEB_ITEM = re.compile(r"/([^/]+)/([^/]+)/(issues|mrs|builds)/([1-9][0-9]*)")
EXIT_STATUS = {0: 200, 2: 400, 3: 404, 4: 403}


@dataclasses.dataclass
class Answer:
    status: int
    headers: list = dataclasses.field(default_factory=list)
    body: bytes | None = b""  # None: no body and no Content-Length (304)
    gzip: bool = False
    close: bool = False


def json_answer(status, value, headers=()):
    return Answer(status, [("Content-Type", "application/json"), *headers], compact_json(value))


def envelope(outcome):
    if outcome.output is not None:
        body = {"protocol_version": PROTOCOL_VERSION, "output": outcome.output,
                "exit_code": outcome.exit_code}
    else:
        body = {"protocol_version": PROTOCOL_VERSION, "exit_code": outcome.exit_code}
        if outcome.exit_code == 0:
            body["data"] = outcome.data
        else:
            body["error"] = outcome.error
    if outcome.stderr is not None:
        body["stderr"] = outcome.stderr
    return body


def outcome_answer(outcome, headers=()):
    return json_answer(EXIT_STATUS.get(outcome.exit_code, 500), envelope(outcome), headers)


def special_answer(status, error, headers=()):
    """401, 429 and 503: answered before any command, so no exit_code."""
    return json_answer(status, {"protocol_version": PROTOCOL_VERSION, "error": error}, headers)


def html_answer(status, title, text, headers=()):
    page = (f"<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>{html.escape(title)}"
            f"</title></head>\n<body><h1>{html.escape(title)}</h1><p>{html.escape(text)}</p>"
            "</body></html>\n")
    return Answer(status, [("Content-Type", "text/html; charset=utf-8"), *headers],
                  page.encode("utf-8"))


def web_not_found():
    return html_answer(404, "Not found", "There is nothing here.")


def etag_matches(if_none_match, etag):
    for candidate in if_none_match.split(","):
        candidate = candidate.strip()
        if candidate.startswith("W/"):
            candidate = candidate[2:]
        if candidate == "*" or candidate == etag:
            return True
    return False


def accepts_gzip(accept_encoding):
    for item in (accept_encoding or "").split(","):
        coding, _, params = item.partition(";")
        if coding.strip().lower() != "gzip":
            continue
        quality = params.strip().lower()
        if quality.startswith("q="):
            try:
                return float(quality[2:]) > 0
            except ValueError:
                return False
        return True
    return False


def pad_json(body, size):
    if len(body) >= size or not body.startswith(b"{"):
        return body
    return b"{" + b" " * (size - len(body)) + body[1:]


@dataclasses.dataclass
class ApiRequest:
    """What the API layer needs from a request, decoded once for logging, faults and answering."""
    argv: list | None = None
    stdin: str | None = None
    body_ok: bool = True


class StandinServer(ThreadedServer):
    def __init__(self, host, port, tls_context=None):
        self.store = None  # set by the caller once the URL is known
        self.faults = FaultBook()
        self.ssh_faults = SSHFaults()
        self.requests = RequestLog()
        self._serial_lock = threading.Lock()
        self._next_serial = 1
        super().__init__(host, port, StandinHandler, tls_context)

    def connection_serial(self):
        with self._serial_lock:
            serial = self._next_serial
            self._next_serial += 1
            return serial


class StandinHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def version_string(self):
        return "gitbay"

    def setup(self):
        super().setup()
        self.serial = self.server.connection_serial()
        self.requests_on_connection = 0

    def handle(self):
        if self.server.tls_context is not None:
            try:
                self.connection.do_handshake()
            except (OSError, ValueError):
                return
        try:
            super().handle()
        except (ConnectionError, TimeoutError):
            pass

    def log_message(self, format, *args):
        pass  # _log_line writes one line per request instead

    def do_GET(self):
        self._serve()

    do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_HEAD = do_GET

    # Reading

    def _read_body(self, cap):
        """Returns (body, refused): refused when over `cap` or unreadable; reads a bounded drain."""
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            return self._read_chunked(cap)
        try:
            length = int(self.headers.get("Content-Length", "0"))
        except ValueError:
            self.close_connection = True
            return b"", True
        if length < 0:
            self.close_connection = True
            return b"", True
        if length > cap:
            self._discard(min(length, DRAIN_LIMIT))
            self.close_connection = True
            return b"", True
        return self.rfile.read(length), False

    def _discard(self, count):
        while count > 0:
            chunk = self.rfile.read(min(count, 65536))
            if not chunk:
                return
            count -= len(chunk)

    def _read_chunked(self, cap):
        body, total = [], 0
        while True:
            line = self.rfile.readline(1024)
            try:
                size = int(line.split(b";")[0].strip(), 16)
            except ValueError:
                self.close_connection = True
                return b"", True
            if size == 0:
                while self.rfile.readline(8192) not in (b"\r\n", b"\n", b""):
                    pass
                return b"".join(body), False
            total += size
            if total > cap:
                self.close_connection = True
                return b"", True
            body.append(self.rfile.read(size))
            self.rfile.readline(8)

    # Serving

    def _serve(self):
        self.requests_on_connection += 1
        target = urllib.parse.urlsplit(self.path)
        path = target.path
        if path == "/_standin" or path.startswith("/_standin/"):
            self._serve_control(path, target.query)
            return
        body, too_big = self._read_body(BODY_CAP)
        store = self.server.store
        api = self._decode_api(path, target.query, body, too_big)
        _, account, _ = store.authenticate(self.headers.get("Authorization"))
        username = account.username if account else None
        fault = self.server.faults.take(self.command, path, api.argv, username)
        action = fault["action"] if fault else None
        entry = self.server.requests.add({
            "connection": self.serial,
            "connection_request": self.requests_on_connection,
            "time": time.monotonic(),
            "method": self.command,
            "path": path,
            "target": self.path,
            "query_argv": api.argv if path == "/api/v1/read" else None,
            "headers": [[name, value] for name, value in self.headers.items()],
            "body": self._body_json(body),
            "body_text": body[:LOGGED_BODY_TEXT].decode("utf-8", "replace") if body else None,
            "body_size": len(body),
            "argv": api.argv,
            "stdin": api.stdin,
            "username": username,
            "status": None,
            "fault": action,
        })
        if action == "close":
            self.close_connection = True
            self._log_line(None, action, path, api, username)
            return
        if action == "stall":
            self._stall()
            self._log_line(None, action, path, api, username)
            return
        if action == "status":
            headers = list(fault.get("headers", {}).items())
            answer = Answer(fault["status"], headers, fault.get("body", "").encode("utf-8"))
        elif action == "redirect":
            answer = Answer(302, [("Location", fault["redirect"]),
                                  ("Content-Type", "text/plain; charset=utf-8")], b"Found\n")
        else:
            if action == "delay":
                time.sleep(fault["delay"])
            answer = self._answer(path, api, too_big)
        # Logged before the bytes leave: a client holding its answer finds it in the log.
        self.server.requests.record_status(entry, answer.status)
        try:
            self._send(answer, fault)
        except ConnectionError:
            self.close_connection = True  # the client left mid-answer
        self._log_line(answer.status, action, path, api, username)

    @staticmethod
    def _body_json(body):
        try:
            return json.loads(body) if body else None
        except (ValueError, UnicodeDecodeError):
            return None

    def _decode_api(self, path, query, body, too_big):
        if path == "/api/v1/read":
            return ApiRequest(argv=urllib.parse.parse_qs(query, keep_blank_values=True)
                              .get("argv", []))
        if path != "/api/v1/cmd" or self.command != "POST":
            return ApiRequest()
        if too_big:
            return ApiRequest(body_ok=False)
        try:
            decoded = json.loads(body.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            return ApiRequest(body_ok=False)
        if decoded is None:
            return ApiRequest(argv=[])
        if not isinstance(decoded, dict):
            return ApiRequest(body_ok=False)
        argv, stdin = decoded.get("argv"), decoded.get("stdin")
        if argv is None:
            argv = []
        if not isinstance(argv, list) or not all(isinstance(word, str) for word in argv):
            return ApiRequest(body_ok=False)
        if stdin is not None and not isinstance(stdin, str):
            return ApiRequest(body_ok=False)
        return ApiRequest(argv=argv, stdin=stdin)

    def _answer(self, path, api, too_big):
        store = self.server.store
        if path in ("/api/v1/cmd", "/api/v1/read"):
            with store.lock:
                answer = self._api_answer(path, api)
            if too_big:
                answer.close = True
            return answer
        if store.config["busy"]:
            return html_answer(503, "Busy", "The server is busy; retry later.",
                               [("Retry-After", "60")])
        return self._web_answer(path)

    def _api_answer(self, path, api):
        store = self.server.store
        reading = path == "/api/v1/read"
        if not store.config["api_enabled"]:
            return web_not_found()
        allowed = "GET" if reading else "POST"
        if self.command != allowed:
            return special_answer(405, f"use {allowed}", [("Allow", allowed)])
        cache = [("Cache-Control", "private, no-cache")] if reading else []
        answer = self._api_checked(api, reading, cache)
        answer.gzip = reading and accepts_gzip(self.headers.get("Accept-Encoding"))
        return answer

    def _api_checked(self, api, reading, cache):
        store = self.server.store
        if store.config["busy"]:
            return special_answer(503, BUSY, [("Retry-After", "60"), *cache])
        state, account, token = store.authenticate(self.headers.get("Authorization"))
        if state != "ok":
            return special_answer(401, MISSING_TOKEN if state == "missing" else INVALID_TOKEN,
                                  [("WWW-Authenticate", 'Bearer realm="gitbay api"'), *cache])
        tagged = cache + ([("ETag", account.etag())] if reading else [])
        if not api.body_ok:
            return outcome_answer(commands.usage(BAD_BODY), tagged)
        if not api.argv:
            return outcome_answer(commands.usage(ARGV_REQUIRED), tagged)
        try:
            command, args = commands.lookup(api.argv)
        except commands.UnknownCommand as unknown:
            return outcome_answer(commands.Outcome(commands.EXIT_NOT_FOUND,
                                                   error=f"unknown command {unknown}"), tagged)
        if reading and command.changes_state:
            return outcome_answer(commands.usage(
                f"{command.name} changes state; POST it to /api/v1/cmd"), tagged)
        retry = store.admit(account, writes=command.changes_state)
        if retry is not None:
            return special_answer(429, f"rate limited; retry in {retry}s",
                                  [("Retry-After", str(retry)), *cache])
        if reading:
            if_none_match = self.headers.get("If-None-Match")
            if if_none_match is not None and etag_matches(if_none_match, account.etag()):
                return Answer(304, tagged, None)
        if command.credentials and token.scope != "full":
            # Since v1.30.0 a full-scope token may run `token ...`; a read-scoped one never.
            return outcome_answer(commands.Outcome(
                commands.EXIT_DENIED,
                error=f"this token is read-only; {command.name} manages credentials"), tagged)
        if command.changes_state:
            if token.scope != "full":
                return outcome_answer(commands.Outcome(
                    commands.EXIT_DENIED,
                    error=f"this token is read-only; {command.name} modifies state"), tagged)
            retry = store.admit_write(account)
            if retry is not None:
                limit = store.config["writes_per_minute"]
                return outcome_answer(commands.Outcome(
                    commands.EXIT_DENIED,
                    error=f"too many writes: at most {limit} a minute; retry in {retry}s"), tagged)
        outcome = commands.run(command, commands.Invocation(store, account, args, api.stdin, token))
        if reading:
            tagged = cache + [("ETag", account.etag())]
        return outcome_answer(outcome, tagged)

    def _web_answer(self, path):
        site = self.server.store.config["site_url"].rstrip("/")
        if path == "/":
            return html_answer(200, "gitbay", f"A gitbay stand-in; the inbox is {site}/notifications")
        if path == "/notifications":
            return html_answer(200, "Notifications", "Your gitbay inbox.")
        item = WEB_ITEM.fullmatch(path)
        if item:
            owner, repo, segment, number = item.groups()
            noun = {"issues": "Issue", "mrs": "Merge request", "builds": "Build"}[segment]
            return html_answer(200, f"{noun} #{number} in {owner}/{repo}",
                               f"{site}{path}")
        return web_not_found()

    # Writing

    def _send(self, answer, fault):
        action = fault["action"] if fault else None
        body = answer.body
        headers = list(answer.headers)
        if body is not None:
            if action == "body_bytes":
                body = pad_json(body, fault["body_bytes"])
            if action == "bad_gzip":
                headers.append(("Content-Encoding", "gzip"))
            elif answer.gzip and body:
                body = gzip.compress(body)
                headers += [("Content-Encoding", "gzip"), ("Vary", "Accept-Encoding")]
        if answer.close or action == "truncate":
            self.close_connection = True
        self.send_response(answer.status)
        for name, value in headers:
            self.send_header(name, value)
        if body is not None:
            self.send_header("Content-Length", str(len(body)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if body is None or self.command == "HEAD":
            return
        if action == "truncate":
            body = body[:fault["truncate"]]
        if action == "drip":
            self._drip(body, fault["drip"])
        else:
            self.wfile.write(body)

    def _drip(self, body, rate):
        self.wfile.flush()
        step = max(1, int(rate // 20))
        for start in range(0, len(body), step):
            time.sleep(step / rate)
            self.wfile.write(body[start:start + step])
            self.wfile.flush()

    def _stall(self):
        """Holds the request unanswered until the fault is cleared or the client leaves."""
        self.close_connection = True
        event = self.server.faults.stall_event()
        # A TLS socket cannot be peeked at; such a stall ends only when released.
        watch_client = not isinstance(self.connection, ssl.SSLSocket)
        try:
            while not event.wait(0.05):
                if watch_client and self._client_left():
                    return
        finally:
            self.server.faults.end_stall(event)

    def _client_left(self):
        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
            return bool(readable) and not self.connection.recv(1, socket.MSG_PEEK)
        except OSError:
            return True

    def _log_line(self, status, action, path, api, username):
        argv = f" argv=[{' '.join(api.argv)}]" if api.argv else ""
        user = f" user={username}" if username else ""
        outcome = str(status) if status is not None else "no answer"
        fault = f" fault={action}" if action else ""
        print(f"conn={self.serial} {self.command} {path}{argv}{user} -> {outcome}{fault}",
              file=sys.stderr, flush=True)

    # The control API

    def _serve_control(self, path, query):
        client = ipaddress.ip_address(self.client_address[0].split("%")[0])
        if not (client.is_loopback or getattr(client, "ipv4_mapped", None)
                and client.ipv4_mapped.is_loopback):
            self._read_body(BODY_CAP)
            self._send(web_not_found(), None)
            return
        body, too_big = self._read_body(BODY_CAP)
        status, value = standin_control.handle(self.server, self.command, path, query,
                                               body, too_big)
        self._send(json_answer(status, value), None)
