"""Tests of the gitbay stand-in: one per quirk of gitbay-api.md, the faults, the request log
and the process itself. Run from the package root:

    python3 -m unittest discover -s Tests/Standin -v
"""

import gzip
import http.client
import json
import os
import re
import select
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.parse

from test_relay_standin import Relay

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.path.join(HERE, "gitbay_standin.py")
TLS = os.path.join(HERE, "tls")
ETAG_FORMAT = re.compile(r'"[0-9a-f]{32}"')
MISSING_401 = (b'{"protocol_version":1,"error":"missing bearer token; mint one over SSH: '
               b'token create --name <n>"}')
INVALID_401 = b'{"protocol_version":1,"error":"invalid or expired token"}'
BAD_BODY = 'body must be JSON: {"argv": [...], "stdin": "..."}'
PUSH_DISABLED = ("this instance does not send push notifications ([push] enabled = false); "
                 "ask an admin")
MIB = 1024 * 1024


class Reply:
    def __init__(self, response, body):
        self.status = response.status
        self.headers = response.headers
        self.body = body

    @property
    def json(self):
        return json.loads(self.body)


class Standin:
    """The stand-in as a subprocess, plus small clients for its API and control API."""

    def __init__(self, *arguments, stdin=subprocess.DEVNULL):
        self.stderr = tempfile.TemporaryFile()
        self.process = subprocess.Popen([sys.executable, SERVER, "--port", "0", *arguments],
                                        stdin=stdin, stdout=subprocess.PIPE, stderr=self.stderr)
        self.ready_line = self.process.stdout.readline().decode()
        if not self.ready_line:
            problem = self.stderr_text()
            self.stop()
            raise RuntimeError("the stand-in did not start: " + problem)
        ready = json.loads(self.ready_line)
        self.url, self.port = ready["url"], ready["port"]

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
        self.process.wait(timeout=10)
        self.process.stdout.close()
        self.stderr.close()

    def stderr_text(self):
        self.stderr.seek(0)
        return self.stderr.read().decode(errors="replace")

    def connection(self, timeout=10):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def request(self, method, target, headers=None, body=None, connection=None):
        own = connection is None
        connection = connection or self.connection()
        try:
            connection.request(method, target, body=body, headers=headers or {})
            response = connection.getresponse()
            return Reply(response, response.read())
        finally:
            if own:
                connection.close()

    def control(self, path, body=None, method=None):
        method = method or ("GET" if body is None else "POST")
        reply = self.request(method, "/_standin/" + path,
                             {"Content-Type": "application/json"},
                             None if body is None else json.dumps(body).encode())
        if reply.status != 200:
            raise AssertionError(f"control {path}: {reply.status} {reply.body!r}")
        return reply.json

    def read(self, argv, token=None, headers=None, connection=None):
        query = urllib.parse.urlencode([("argv", word) for word in argv])
        return self.request("GET", "/api/v1/read?" + query,
                            self._auth(token, headers), connection=connection)

    def cmd(self, argv, token=None, stdin=None, headers=None, connection=None):
        body = {"argv": argv}
        if stdin is not None:
            body["stdin"] = stdin
        return self.cmd_raw(json.dumps(body).encode(), token, headers, connection)

    def cmd_raw(self, body, token=None, headers=None, connection=None):
        headers = self._auth(token, headers)
        headers.setdefault("Content-Type", "application/json")
        return self.request("POST", "/api/v1/cmd", headers, body, connection)

    @staticmethod
    def _auth(token, headers):
        headers = dict(headers or {})
        if token is not None:
            headers["Authorization"] = "Bearer " + token
        return headers


class StandinCase(unittest.TestCase):
    """One server for the class; every test starts from a reset with user cmc."""

    @classmethod
    def setUpClass(cls):
        cls.standin = Standin()

    @classmethod
    def tearDownClass(cls):
        cls.standin.stop()

    def setUp(self):
        self.s = self.standin
        self.s.control("reset", {})
        self.s.control("users", {"username": "cmc"})
        self.token = self.s.control("tokens", {"username": "cmc", "scope": "full"})["token"]

    # Shorthands

    def read(self, *argv, token=None, **keywords):
        return self.s.read(list(argv), token or self.token, **keywords)

    def cmd(self, *argv, token=None, **keywords):
        return self.s.cmd(list(argv), token or self.token, **keywords)

    def notice(self, username="cmc", **fields):
        return self.s.control("notifications", dict(fields, username=username))["id"]

    def user_with_token(self, username, scope="full"):
        self.s.control("users", {"username": username})
        return self.s.control("tokens", {"username": username, "scope": scope})["token"]

    def etag(self, token=None):
        return self.read("notifications", "list", token=token).headers["ETag"]

    def assertEnvelope(self, reply, status, exit_code, error=None):
        self.assertEqual(reply.status, status, reply.body)
        self.assertEqual(reply.json["protocol_version"], 1)
        self.assertEqual(reply.json["exit_code"], exit_code)
        if error is not None:
            self.assertEqual(reply.json["error"], error)


class EnvelopeAndStatusTests(StandinCase):
    def test_exit_0_is_200_with_data(self):
        reply = self.cmd("whoami")
        self.assertEqual(reply.status, 200)
        self.assertEqual(reply.body, b'{"protocol_version":1,"exit_code":0,"data":'
                                     b'{"username":"cmc","admin":false,"key_scope":"full"}}')
        self.assertEqual(reply.headers["Content-Type"], "application/json")

    def test_exit_2_usage_is_400(self):
        self.assertEnvelope(self.read("notifications", "list", "--limit", "0"), 400, 2,
                            "--limit must be between 1 and 200")

    def test_exit_3_not_found_is_404(self):
        self.assertEnvelope(self.cmd("notifications", "device", "remove", "999"), 404, 3,
                            "no such device; see notifications device list")

    def test_exit_4_denied_is_403(self):
        reader = self.s.control("tokens", {"username": "cmc", "scope": "read"})["token"]
        self.assertEnvelope(self.cmd("notifications", "read", "--all", token=reader), 403, 4)

    def test_other_exit_codes_are_500(self):
        self.s.control("config", {"push_enabled": False})
        reply = self.cmd("notifications", "device", "add", "--label", "x", stdin="tok")
        self.assertEnvelope(reply, 500, 1, PUSH_DISABLED)

    def test_diagnostics_add_stderr(self):
        first = self.notice()
        reply = self.cmd("notifications", "read", str(first), "9999")
        self.assertEqual(reply.json, {"protocol_version": 1, "exit_code": 0, "data": {"read": 1},
                                      "stderr": "warning: 1 of 2 ids matched nothing\n"})
        self.assertNotIn("stderr", self.cmd("whoami").json)

    def test_non_json_output_is_wrapped(self):
        reply = self.read("help")
        self.assertEqual(reply.status, 200)
        self.assertTrue(reply.body.startswith(b'{"protocol_version":1,"output":"gitbay commands:'))
        self.assertTrue(reply.body.endswith(b',"exit_code":0}'))
        self.assertNotIn("data", reply.json)


class AuthenticationTests(StandinCase):
    def assertUnauthorized(self, reply, body):
        self.assertEqual(reply.status, 401)
        self.assertEqual(reply.body, body)
        self.assertEqual(reply.headers["WWW-Authenticate"], 'Bearer realm="gitbay api"')
        self.assertNotIn("exit_code", reply.json)
        self.assertIsNone(reply.headers["ETag"])

    def test_missing_header_answers_missing_body(self):
        self.assertUnauthorized(self.s.read(["whoami"]), MISSING_401)
        self.assertUnauthorized(self.s.cmd(["whoami"]), MISSING_401)

    def test_empty_token_is_missing(self):
        reply = self.s.read(["whoami"], headers={"Authorization": "Bearer "})
        self.assertUnauthorized(reply, MISSING_401)

    def test_lowercase_bearer_is_missing(self):
        reply = self.s.read(["whoami"], headers={"Authorization": "bearer " + self.token})
        self.assertUnauthorized(reply, MISSING_401)

    def test_other_schemes_are_missing(self):
        reply = self.s.read(["whoami"], headers={"Authorization": "Basic Y21jOnB3"})
        self.assertUnauthorized(reply, MISSING_401)

    def test_unknown_token_is_invalid(self):
        self.assertUnauthorized(self.s.read(["whoami"], "gb_nope"), INVALID_401)

    def test_two_spaces_make_an_unknown_token(self):
        reply = self.s.read(["whoami"], headers={"Authorization": "Bearer  " + self.token})
        self.assertUnauthorized(reply, INVALID_401)

    def test_revoked_token_is_invalid(self):
        self.assertEqual(self.read("whoami").status, 200)
        self.s.control("tokens/revoke", {"token": self.token})
        self.assertUnauthorized(self.s.read(["whoami"], self.token), INVALID_401)

    def test_expired_token_is_invalid(self):
        token = self.s.control("tokens", {"username": "cmc", "expires_in": 30})["token"]
        self.assertEqual(self.read("whoami", token=token).status, 200)
        self.s.control("clock", {"advance": 31})
        self.assertUnauthorized(self.s.read(["whoami"], token), INVALID_401)

    def test_minted_tokens_start_gb_and_only_a_hash_is_kept(self):
        self.assertRegex(self.token, r"^gb_[0-9a-f]{40}$")
        state = json.dumps(self.s.control("state"))
        self.assertNotIn(self.token, state)


class CmdBodyTests(StandinCase):
    def test_undecodable_body(self):
        for body in (b"{not json", b'["whoami"]', b'{"argv": "whoami"}', b'{"argv": [1]}',
                     b'{"argv": ["whoami"], "stdin": 5}', b"\xff\xfe"):
            with self.subTest(body=body):
                self.assertEnvelope(self.s.cmd_raw(body, self.token), 400, 2, BAD_BODY)

    def test_empty_argv(self):
        for body in (b'{"argv": []}', b"{}", b"null", b'{"argv": null}'):
            with self.subTest(body=body):
                self.assertEnvelope(self.s.cmd_raw(body, self.token), 400, 2, "argv is required")

    def test_body_of_exactly_one_mib_is_accepted(self):
        body = b'{"argv": ["whoami"]' + b" " * (MIB - 20) + b"}"
        self.assertEqual(len(body), MIB)
        self.assertEqual(self.s.cmd_raw(body, self.token).status, 200)

    def test_body_over_one_mib_is_refused_as_undecodable(self):
        body = b'{"argv": ["whoami"]' + b" " * (MIB - 19) + b"}"
        reply = self.s.cmd_raw(body, self.token)
        self.assertEnvelope(reply, 400, 2, BAD_BODY)
        self.assertEqual(reply.headers["Connection"], "close")

    def test_chunked_body_is_read(self):
        chunks = iter([b'{"argv": ', b'["whoami"]}'])
        reply = self.s.request("POST", "/api/v1/cmd", {"Authorization": "Bearer " + self.token},
                               chunks)
        self.assertEqual(reply.status, 200)
        self.assertIn(["Transfer-Encoding", "chunked"],
                      self.s.control("requests")["requests"][0]["headers"])

    def test_unknown_keys_are_ignored(self):
        reply = self.s.cmd_raw(b'{"argv": ["whoami"], "extra": 1}', self.token)
        self.assertEqual(reply.status, 200)

    def test_cmd_runs_read_only_commands_without_etag(self):
        reply = self.cmd("notifications", "list")
        self.assertEqual(reply.status, 200)
        self.assertIsNone(reply.headers["ETag"])
        self.assertIsNone(reply.headers["Cache-Control"])

    def test_wrong_method_is_405(self):
        reply = self.s.request("GET", "/api/v1/cmd", {"Authorization": "Bearer " + self.token})
        self.assertEqual((reply.status, reply.headers["Allow"]), (405, "POST"))


class CommandRoutingTests(StandinCase):
    def test_read_endpoint_refuses_state_changing_commands(self):
        for argv, path in ((["notifications", "read", "1"], "notifications read"),
                           (["notifications", "device", "add", "--label", "x"],
                            "notifications device add"),
                           (["notifications", "settings", "push", "on"],
                            "notifications settings push")):
            with self.subTest(argv=argv):
                self.assertEnvelope(self.read(*argv), 400, 2,
                                    f"{path} changes state; POST it to /api/v1/cmd")

    def test_unknown_command_is_404_on_both_endpoints(self):
        for argv, name in ((["frob"], "frob"), (["notifications", "frob", "x"],
                                                "notifications frob"),
                           (["notifications"], "notifications")):
            with self.subTest(argv=argv):
                self.assertEnvelope(self.read(*argv), 404, 3, f"unknown command {name}")
                self.assertEnvelope(self.cmd(*argv), 404, 3, f"unknown command {name}")

    def test_read_endpoint_without_argv(self):
        reply = self.s.request("GET", "/api/v1/read", {"Authorization": "Bearer " + self.token})
        self.assertEnvelope(reply, 400, 2, "argv is required")

    def test_unknown_flag_is_usage_error(self):
        reply = self.read("notifications", "list", "--bogus")
        self.assertEnvelope(reply, 400, 2, "notifications list: unknown flag --bogus")

    def test_api_disabled_answers_404_on_both_endpoints(self):
        self.s.control("config", {"api_enabled": False})
        for reply in (self.read("whoami"), self.cmd("whoami"), self.s.read(["whoami"])):
            self.assertEqual(reply.status, 404)
            self.assertIn("text/html", reply.headers["Content-Type"])
            self.assertIsNone(reply.headers["ETag"])


class ETagTests(StandinCase):
    def test_every_read_answer_carries_cache_control_and_a_strong_etag(self):
        for argv in (["notifications", "list"], ["dashboard"], ["frob"],
                     ["notifications", "list", "--limit", "0"]):
            with self.subTest(argv=argv):
                reply = self.read(*argv)
                self.assertEqual(reply.headers["Cache-Control"], "private, no-cache")
                self.assertRegex(reply.headers["ETag"], ETAG_FORMAT)

    def test_etag_is_per_account_not_per_token(self):
        second = self.s.control("tokens", {"username": "cmc", "scope": "read"})["token"]
        other = self.user_with_token("alba")
        self.assertEqual(self.etag(), self.etag(second))
        self.assertNotEqual(self.etag(), self.etag(other))

    def test_etag_is_stable_while_nothing_changes(self):
        before = self.etag()
        other = self.user_with_token("alba")
        self.notice("alba")
        self.read("dashboard")
        self.cmd("notifications", "read", "--all", token=other)
        self.assertEqual(self.etag(), before)

    def test_etag_changes_on_new_row(self):
        before = self.etag()
        self.notice()
        self.assertNotEqual(self.etag(), before)

    def test_etag_changes_when_marked_read_anywhere(self):
        first, second = self.notice(), self.notice()
        before = self.etag()
        self.cmd("notifications", "read", str(first))
        after_api = self.etag()
        self.s.control("notifications/mark-read", {"username": "cmc", "ids": [second]})
        self.assertEqual(len({before, after_api, self.etag()}), 3)

    def test_marking_nothing_read_keeps_the_etag(self):
        before = self.etag()
        self.cmd("notifications", "read", "12345")
        self.assertEqual(self.etag(), before)

    def test_if_none_match_exact(self):
        etag = self.etag()
        reply = self.read("notifications", "list", headers={"If-None-Match": etag})
        self.assertEqual(reply.status, 304)

    def test_if_none_match_comma_list(self):
        etag = self.etag()
        reply = self.read("notifications", "list",
                          headers={"If-None-Match": f'"{"0" * 32}", {etag} ,"x"'})
        self.assertEqual(reply.status, 304)

    def test_if_none_match_weak_prefix(self):
        reply = self.read("notifications", "list", headers={"If-None-Match": "W/" + self.etag()})
        self.assertEqual(reply.status, 304)

    def test_if_none_match_star(self):
        self.assertEqual(self.read("dashboard", headers={"If-None-Match": "*"}).status, 304)

    def test_stale_if_none_match_gets_the_body(self):
        stale = self.etag()
        self.notice()
        reply = self.read("notifications", "list", headers={"If-None-Match": stale})
        self.assertEqual(reply.status, 200)
        self.assertEqual(len(reply.json["data"]), 1)

    def test_304_has_an_empty_body_and_keeps_the_validators(self):
        etag = self.etag()
        connection = self.s.connection()
        reply = self.s.read(["notifications", "list"], self.token,
                            {"If-None-Match": etag}, connection)
        self.assertEqual((reply.status, reply.body), (304, b""))
        self.assertEqual(reply.headers["ETag"], etag)
        self.assertEqual(reply.headers["Cache-Control"], "private, no-cache")
        self.assertIsNone(reply.headers["Content-Type"])
        # The connection stays usable: the 304 sent no stray body bytes.
        self.assertEqual(self.s.read(["whoami"], self.token, connection=connection).status, 200)
        connection.close()

    def test_304_check_runs_before_the_status_mapping(self):
        etag = self.etag()
        reply = self.read("notifications", "list", "--limit", "0",
                          headers={"If-None-Match": etag})
        self.assertEqual(reply.status, 304)

    def test_gzip_keeps_the_etag(self):
        self.notice()
        plain = self.read("notifications", "list")
        zipped = self.read("notifications", "list", headers={"Accept-Encoding": "gzip"})
        self.assertEqual(zipped.headers["Content-Encoding"], "gzip")
        self.assertEqual(gzip.decompress(zipped.body), plain.body)
        self.assertEqual(zipped.headers["ETag"], plain.headers["ETag"])
        self.assertEqual(int(zipped.headers["Content-Length"]), len(zipped.body))

    def test_gzip_refused_with_q_zero_and_never_on_cmd(self):
        refused = self.read("whoami", headers={"Accept-Encoding": "gzip;q=0, identity"})
        self.assertIsNone(refused.headers["Content-Encoding"])
        command = self.cmd("whoami", headers={"Accept-Encoding": "gzip"})
        self.assertIsNone(command.headers["Content-Encoding"])
        self.assertEqual(command.json["exit_code"], 0)


class RateLimitTests(StandinCase):
    def assertRateLimited(self, reply, seconds):
        self.assertEqual(reply.status, 429)
        self.assertEqual(reply.headers["Retry-After"], str(seconds))
        self.assertEqual(reply.json, {"protocol_version": 1,
                                      "error": f"rate limited; retry in {seconds}s"})
        self.assertIsNone(reply.headers["ETag"])

    def test_read_bucket(self):
        self.s.control("config", {"read_burst": 2, "read_refill": 0.25})
        self.assertEqual(self.read("whoami").status, 200)
        self.assertEqual(self.read("whoami").status, 200)
        self.assertRateLimited(self.read("whoami"), 4)
        self.s.control("clock", {"advance": 4})
        self.assertEqual(self.read("whoami").status, 200)

    def test_retry_after_is_whole_seconds_at_least_one(self):
        # 0.8 s to the next token: Retry-After rounds it up to 1.
        self.s.control("config", {"read_burst": 1, "read_refill": 1.25})
        self.read("whoami")
        self.assertRateLimited(self.read("whoami"), 1)

    def test_default_read_burst_is_120(self):
        self.s.control("config", {"read_refill": 0})  # so the test's own pace refills nothing
        for _ in range(120):
            self.assertEqual(self.read("whoami").status, 200)
        self.assertRateLimited(self.read("whoami"), 3600)

    def test_write_bucket(self):
        self.s.control("config", {"write_burst": 1})
        self.assertEqual(self.cmd("notifications", "read", "--all").status, 200)
        self.assertRateLimited(self.cmd("notifications", "read", "--all"), 5)
        self.assertEqual(self.read("whoami").status, 200)  # reads still flow

    def test_a_write_draws_on_the_read_bucket_too(self):
        self.s.control("config", {"read_burst": 2, "read_refill": 0.1, "write_burst": 10})
        self.cmd("notifications", "read", "--all")
        self.cmd("notifications", "settings", "push", "on")
        self.assertRateLimited(self.read("whoami"), 10)

    def test_buckets_are_per_account(self):
        self.s.control("config", {"read_burst": 1, "read_refill": 0.1})
        other = self.user_with_token("alba")
        self.read("whoami")
        self.assertEqual(self.read("whoami").status, 429)
        self.assertEqual(self.read("whoami", token=other).status, 200)

    def test_write_limiter_answers_403_too_many_writes(self):
        self.s.control("config", {"write_burst": 100, "writes_per_minute": 2})
        for _ in range(2):
            self.assertEqual(self.cmd("notifications", "read", "--all").status, 200)
        reply = self.cmd("notifications", "read", "--all")
        self.assertEnvelope(reply, 403, 4)
        self.assertTrue(reply.json["error"].startswith("too many writes"))
        self.s.control("clock", {"advance": 60})
        self.assertEqual(self.cmd("notifications", "read", "--all").status, 200)


class BusyTests(StandinCase):
    def test_busy_is_503_with_retry_after_60_and_no_etag(self):
        self.s.control("config", {"busy": True})
        for reply in (self.read("notifications", "list"), self.cmd("whoami")):
            self.assertEqual(reply.status, 503)
            self.assertEqual(reply.headers["Retry-After"], "60")
            self.assertIsNone(reply.headers["ETag"])
            self.assertEqual(reply.json, {"protocol_version": 1,
                                          "error": "server busy; retry later"})
        self.s.control("config", {"busy": False})
        self.assertEqual(self.read("whoami").status, 200)


class ScopeTests(StandinCase):
    def setUp(self):
        super().setUp()
        self.reader = self.s.control("tokens", {"username": "cmc", "scope": "read"})["token"]

    def test_read_only_token_cannot_write(self):
        for argv, name in ((["notifications", "read", "--all"], "notifications read"),
                           (["notifications", "device", "add", "--label", "x"], "notifications device add")):
            with self.subTest(argv=argv):
                reply = self.cmd(*argv, token=self.reader, stdin="tok")
                self.assertEnvelope(reply, 403, 4, f"this token is read-only; {name} modifies state")

    def test_read_only_token_can_poll(self):
        self.notice()
        self.assertEqual(len(self.read("notifications", "list", token=self.reader).json["data"]), 1)
        self.assertEqual(self.cmd("dashboard", token=self.reader).status, 200)

    def test_whoami_key_scope_is_always_full(self):
        self.assertEqual(self.read("whoami", token=self.reader).json["data"]["key_scope"], "full")


class NotificationListTests(StandinCase):
    def test_bare_list_is_unread_newest_first_and_capped_at_50(self):
        ids = self.s.control("notifications/bulk", {"username": "cmc", "count": 60})["ids"]
        self.s.control("notifications/mark-read", {"username": "cmc", "ids": ids[-3:]})
        rows = self.read("notifications", "list").json["data"]
        self.assertIsInstance(rows, list)
        self.assertEqual([row["id"] for row in rows], sorted(ids[:-3], reverse=True)[:50])
        self.assertTrue(all("read_at" not in row for row in rows))

    def test_row_shape(self):
        self.notice(repo="krz/gitbay", kind="mr", actor="alba", summary="opened merge request #3",
                    path="krz/gitbay/mrs/3")
        row = self.read("notifications", "list").json["data"][0]
        self.assertEqual(set(row), {"id", "repo", "kind", "actor", "summary", "path",
                                    "created_at"})
        self.assertEqual((row["kind"], row["path"]), ("mr", "krz/gitbay/mrs/3"))
        self.assertRegex(row["created_at"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")

    def test_limit_and_cursor_pages_with_next_absent_on_the_last(self):
        ids = self.s.control("notifications/bulk", {"username": "cmc", "count": 7})["ids"]
        seen, argv = [], ["notifications", "list", "--limit", "3"]
        pages = 0
        while True:
            data = self.read(*argv).json["data"]
            pages += 1
            seen += [row["id"] for row in data["items"]]
            if "next" not in data:
                break
            argv = ["notifications", "list", "--limit", "3", "--cursor", data["next"]]
        self.assertEqual(pages, 3)
        self.assertEqual(seen, sorted(ids, reverse=True))

    def test_cursor_alone_gives_the_envelope(self):
        self.s.control("notifications/bulk", {"username": "cmc", "count": 2})
        first = self.read("notifications", "list", "--limit=1").json["data"]
        rest = self.read("notifications", "list", "--cursor", first["next"]).json["data"]
        self.assertEqual(len(rest["items"]), 1)
        self.assertNotIn("next", rest)

    def test_exact_page_has_no_next(self):
        self.s.control("notifications/bulk", {"username": "cmc", "count": 3})
        data = self.read("notifications", "list", "--limit", "3").json["data"]
        self.assertEqual((len(data["items"]), "next" in data), (3, False))

    def test_limit_bounds(self):
        for limit in ("1", "200"):
            self.assertEqual(self.read("notifications", "list", "--limit", limit).status, 200)
        for limit in ("0", "201", "-1", "ten"):
            with self.subTest(limit=limit):
                self.assertEnvelope(self.read("notifications", "list", "--limit", limit), 400, 2)

    def test_bad_cursor_is_usage_error(self):
        self.assertEnvelope(self.read("notifications", "list", "--cursor", "!!"), 400, 2,
                            "invalid cursor")

    def test_all_includes_read_rows(self):
        first, second = self.notice(), self.notice()
        self.cmd("notifications", "read", str(first))
        rows = self.read("notifications", "list", "--all").json["data"]
        self.assertEqual([row["id"] for row in rows], [second, first])
        self.assertIn("read_at", rows[1])
        self.assertNotIn("read_at", rows[0])

    def test_explicit_ids_may_go_backwards(self):
        self.notice(id=50)
        self.notice(id=10)
        self.assertEqual(self.notice(), 51)
        ids = [row["id"] for row in self.read("notifications", "list").json["data"]]
        self.assertEqual(ids, [51, 50, 10])


class NotificationReadTests(StandinCase):
    def test_read_ids_counts_rows_changed(self):
        first, second = self.notice(), self.notice()
        self.assertEqual(self.cmd("notifications", "read", str(first), str(second))
                         .json["data"], {"read": 2})
        self.assertEqual(self.cmd("notifications", "read", str(first)).json["data"], {"read": 0})

    def test_read_all(self):
        self.notice()
        self.notice()
        self.assertEqual(self.cmd("notifications", "read", "--all").json["data"], {"read": 2})
        self.assertEqual(self.read("notifications", "list").json["data"], [])

    def test_another_users_ids_match_nothing(self):
        self.user_with_token("alba")
        theirs = self.notice("alba")
        self.assertEqual(self.cmd("notifications", "read", str(theirs)).json["data"], {"read": 0})
        self.assertEqual(self.cmd("notifications", "read", "--all").json["data"], {"read": 0})
        alba = [n for n in self.s.control("state")["notifications"] if n["id"] == theirs]
        self.assertIsNone(alba[0]["read_at"])

    def test_usage_errors(self):
        self.assertEnvelope(self.cmd("notifications", "read"), 400, 2)
        self.assertEnvelope(self.cmd("notifications", "read", "--all", "3"), 400, 2)
        self.assertEnvelope(self.cmd("notifications", "read", "x"), 400, 2, "invalid id x")


class DashboardAndSettingsTests(StandinCase):
    def test_dashboard_carries_unread(self):
        self.notice()
        self.notice(read=True)
        self.assertEqual(self.read("dashboard").json["data"]["unread"], 1)

    def test_old_server_dashboard_has_no_unread(self):
        before = self.etag()
        self.s.control("config", {"dashboard_unread": False})
        self.assertNotIn("unread", self.read("dashboard").json["data"])
        self.assertNotEqual(self.etag(), before)

    def test_settings_show_and_push_toggle(self):
        self.assertEqual(self.read("notifications", "settings", "show").json["data"],
                         {"mail": True, "watch": True, "push": True})
        off = self.cmd("notifications", "settings", "push", "off").json["data"]
        self.assertEqual(off, {"mail": True, "watch": True, "push": False})
        self.assertEqual(self.read("notifications", "settings", "show").json["data"], off)
        self.assertEnvelope(self.cmd("notifications", "settings", "push", "maybe"), 400, 2)


class DeviceTests(StandinCase):
    def add(self, label, stdin, token=None):
        return self.cmd("notifications", "device", "add", "--label", label, stdin=stdin,
                        token=token)

    def devices(self, token=None):
        return self.read("notifications", "device", "list", token=token).json["data"]

    def test_add_registers(self):
        reply = self.add("gbnotifyd on laptop", "3fa9c2d1" + "0" * 56)
        self.assertEqual(reply.json["data"], {"id": 1, "status": "registered"})

    def test_add_upserts_moving_the_token_and_updating_the_label(self):
        install = "a" * 64
        first = self.add("old label", install).json["data"]["id"]
        alba = self.user_with_token("alba")
        moved = self.add("new label", install, token=alba).json["data"]["id"]
        self.assertEqual(moved, first)
        self.assertEqual(self.devices(), [])
        self.assertEqual([(d["id"], d["label"]) for d in self.devices(alba)],
                         [(first, "new label")])

    def test_add_trims_stdin(self):
        self.add("x", "  \t tok-123 \n")
        self.assertEqual(self.s.control("state")["devices"][0]["token"], "tok-123")

    def test_add_stdin_bounds(self):
        self.assertEqual(self.add("x", "b" * 512).status, 200)
        for stdin in (None, "", " \n ", "c" * 513, "é" * 257):
            with self.subTest(stdin=stdin):
                self.assertEnvelope(self.add("x", stdin), 400, 2,
                                    "install token must be 1..512 bytes after trimming")

    def test_add_on_push_disabled_instance(self):
        self.s.control("config", {"push_enabled": False})
        reply = self.add("x", "tok")
        self.assertEqual(reply.status, 500)
        self.assertEqual(reply.json, {"protocol_version": 1, "exit_code": 1,
                                      "error": PUSH_DISABLED})

    def test_list_truncates_tokens(self):
        self.add("laptop", "3fa9c2d1ffffffff")
        [device] = self.devices()
        self.assertEqual(device["token"], "3fa9c2d1\u2026")
        self.assertEqual(set(device), {"id", "label", "token", "added"})

    def test_remove_own_device(self):
        device = self.add("x", "tok").json["data"]["id"]
        reply = self.cmd("notifications", "device", "remove", str(device))
        self.assertEqual(reply.json["data"], {"status": "removed"})
        self.assertEqual(self.devices(), [])

    def test_remove_foreign_device_is_404(self):
        alba = self.user_with_token("alba")
        theirs = self.add("x", "tok", token=alba).json["data"]["id"]
        self.assertEnvelope(self.cmd("notifications", "device", "remove", str(theirs)), 404, 3)
        self.assertEqual(len(self.devices(alba)), 1)

    def test_reaped_device_disappears(self):
        device = self.add("x", "tok").json["data"]["id"]
        before = self.etag()
        self.s.control("devices/reap", {"id": device})
        self.assertEqual(self.devices(), [])
        self.assertNotEqual(self.etag(), before)


class PushPayloadTests(StandinCase):
    def test_payload_per_device(self):
        self.cmd("notifications", "device", "add", "--label", "x", stdin="tok")
        self.notice(repo="krz/gitbay", actor="cmc", summary="opened issue #12",
                    path="krz/gitbay/issues/12")
        [push] = self.s.control("state")["pushes"]
        self.assertEqual(push["token"], "tok")
        self.assertEqual(push["payload"], {
            "aps": {"alert": {"title": "krz/gitbay", "body": "cmc opened issue #12"},
                    "sound": "default", "badge": 1, "thread-id": "krz/gitbay"},
            "path": "krz/gitbay/issues/12", "instance": self.s.url, "user": "cmc"})

    def test_oldest_format_and_push_off(self):
        self.cmd("notifications", "device", "add", "--label", "x", stdin="tok")
        self.s.control("config", {"push_format": "oldest", "site_url": "https://gitbay.org/"})
        self.notice()
        payload = self.s.control("state")["pushes"][0]["payload"]
        self.assertEqual(set(payload), {"aps", "path"})
        self.assertNotIn("badge", payload["aps"])
        self.cmd("notifications", "settings", "push", "off")
        self.notice()
        self.assertEqual(len(self.s.control("state")["pushes"]), 1)


class ItemShowTests(StandinCase):
    ISSUE = {"number": 42, "title": "Crash on empty repo", "state": "open", "author": "alice",
             "body": "Steps...", "body_format": "md", "labels": ["bug"], "assignees": ["cmc"],
             "milestone": "v1", "created_at": "2026-01-01T09:00:00.000Z",
             "reactions": [{"reaction": "heart", "me": True, "count": 2}],
             "comments": [{"id": 17, "author": "bob", "body": "Reproduced.", "body_format": "md",
                           "created_at": "2026-01-02T10:00:00.000Z",
                           "reactions": [{"reaction": "+1", "me": False, "count": 1}]},
                          {"id": 18, "author": "system", "body": "labelled bug",
                           "created_at": "2026-01-02T10:01:00.000Z"}]}
    MR = {"number": 7, "title": "Fix it", "state": "open", "author": "bob", "draft": True,
          "source": "fix", "target_ref": "main", "head_sha": "0123", "checks": [],
          "checks_combined": "success", "stacked_on": {"number": 6, "title": "Base"},
          "stacked": [{"number": 8, "title": "Top"}], "labels": [], "milestone": "",
          "gates": {"draft": True, "unmet": ["draft"]}}
    BUILD = {"number": 431, "job": "test", "status": "failure", "sha": "0123", "ref": "main",
             "failed_step": 2, "failed_reason": "exit 1", "duration_s": 72,
             "steps": ["go vet ./...", "go test ./..."]}

    def item(self, kind, data, repo="krz/gitbay"):
        return self.s.control("items", {"kind": kind, "repo": repo, "data": data})["number"]

    def test_issue_show_answers_the_seeded_item_with_sorted_keys(self):
        self.item("issue", self.ISSUE)
        reply = self.read("issue", "show", "krz/gitbay", "42")
        self.assertEnvelope(reply, 200, 0)
        self.assertEqual(reply.json["data"], self.ISSUE)
        data = reply.body.decode().split('"data":', 1)[1]
        self.assertTrue(data.startswith('{"assignees":["cmc"],"author":"alice","body":"Steps..."'), data)
        self.assertIn('{"count":2,"me":true,"reaction":"heart"}', data)
        self.assertIn('"author":"system","body":"labelled bug","created_at"', data)

    def test_empty_optional_fields_are_omitted(self):
        self.item("issue", {"number": 1, "title": "t", "state": "open", "author": "a",
                            "labels": [], "assignees": [], "milestone": "", "body": "",
                            "reactions": [], "comments": []})
        data = self.read("issue", "show", "krz/gitbay", "1").json["data"]
        self.assertEqual(set(data), {"number", "title", "state", "author", "created_at"})

    def test_mr_gates_and_stacking_follow_the_state(self):
        self.item("mr", self.MR)
        data = self.read("mr", "show", "krz/gitbay", "7").json["data"]
        self.assertEqual(data["stacked_on"], {"number": 6, "title": "Base"})
        self.assertEqual(data["gates"], {"draft": True, "unmet": ["draft"]})
        self.assertNotIn("checks_combined", data)  # absent with no checks
        self.assertNotIn("labels", data)
        self.assertEqual(data["source"], "fix")
        self.item("mr", dict(self.MR, number=8, state="source_gone", source=""))
        gone = self.read("mr", "show", "krz/gitbay", "8").json["data"]
        self.assertIn("gates", gone)
        self.assertNotIn("stacked", gone)
        self.assertEqual(gone["source"], "")
        self.item("mr", dict(self.MR, number=9, state="merged", merged_by="cmc",
                             checks=[{"context": "ci", "state": "success"}]))
        merged = self.read("mr", "show", "krz/gitbay", "9").json["data"]
        self.assertNotIn("gates", merged)
        self.assertNotIn("stacked_on", merged)
        self.assertEqual(merged["checks_combined"], "success")

    def test_build_show(self):
        self.item("build", self.BUILD)
        reply = self.read("build", "show", "krz/gitbay", "431")
        self.assertEnvelope(reply, 200, 0)
        self.assertEqual(reply.json["data"]["steps"], ["go vet ./...", "go test ./..."])
        self.assertEqual(reply.json["data"]["failed_step"], 2)

    def test_numbers_count_per_repository_and_kind(self):
        self.assertEqual(self.item("issue", {"title": "a"}), 1)
        self.assertEqual(self.item("issue", {"title": "b"}), 2)
        self.assertEqual(self.item("mr", {"title": "c"}), 1)
        self.assertEqual(self.item("issue", {"title": "d"}, repo="krz/other"), 1)

    def test_show_is_read_only_and_answers_on_both_endpoints_with_an_etag(self):
        self.item("build", self.BUILD)
        reply = self.read("build", "show", "krz/gitbay", "431")
        self.assertRegex(reply.headers["ETag"], ETAG_FORMAT)
        self.assertEqual(self.read("build", "show", "krz/gitbay", "431",
                                   headers={"If-None-Match": reply.headers["ETag"]}).status, 304)
        self.assertEnvelope(self.cmd("build", "show", "krz/gitbay", "431"), 200, 0)

    def test_usage_errors(self):
        cases = [
            (["issue", "show"], "expected <owner/name> <number>\nusage: issue show <owner/name> <n>"),
            (["mr", "show", "krz/gitbay"], "expected <owner/name> <number>\nusage: mr show <owner/name> <n>"),
            (["issue", "show", "krz/gitbay", "x"], 'bad issue number "x"'),
            (["mr", "show", "krz/gitbay", "1.5"], 'bad MR number "1.5"'),
            (["build", "show", "krz/gitbay", ""], 'bad build number ""'),
            (["issue", "show", "krz/gitbay", "1", "extra"], "usage: issue show <owner/name> <n>"),
            (["build", "show", "krz/gitbay", "1", "--json"], "usage: build show <owner/name> <n>"),
        ]
        for argv, error in cases:
            with self.subTest(argv=argv):
                self.assertEnvelope(self.read(*argv), 400, 2, error)

    def test_missing_repositories_and_items(self):
        self.item("issue", self.ISSUE)
        cases = [
            (["issue", "show", "krz/nothing", "1"], "repository krz/nothing not found"),
            (["issue", "show", "krz/gitbay", "41"], "issue #41 not found in krz/gitbay"),
            (["mr", "show", "krz/gitbay", "42"], "MR !42 not found in krz/gitbay"),
            (["build", "show", "krz/gitbay", "42"], "no build 42 on krz/gitbay"),
        ]
        for argv, error in cases:
            with self.subTest(argv=argv):
                self.assertEnvelope(self.read(*argv), 404, 3, error)

    def test_a_private_repository_answers_as_a_missing_one(self):
        self.s.control("repos", {"repo": "krz/secret", "readers": ["alice"]})
        self.item("issue", self.ISSUE, repo="krz/secret")
        self.assertEnvelope(self.read("issue", "show", "krz/secret", "42"), 404, 3,
                            "repository krz/secret not found")
        alice = self.user_with_token("alice")
        self.assertEnvelope(self.read("issue", "show", "krz/secret", "42", token=alice), 200, 0)

    def test_seeding_changes_the_etag_only_of_accounts_that_can_read_it(self):
        alice = self.user_with_token("alice")
        self.s.control("repos", {"repo": "krz/secret", "readers": ["alice"]})
        before = (self.etag(), self.etag(alice))
        self.item("issue", self.ISSUE, repo="krz/secret")
        self.assertEqual(self.etag(), before[0])
        self.assertNotEqual(self.etag(alice), before[1])

    def test_disabled_and_unverified_accounts_are_denied(self):
        self.item("issue", self.ISSUE)
        for status, error in (("disabled", "this account is disabled; "),
                              ("unverified", "your account is not active yet: ")):
            with self.subTest(status=status):
                self.s.control("users", {"username": "cmc", "status": status})
                reply = self.read("issue", "show", "krz/gitbay", "42")
                self.assertEnvelope(reply, 403, 4)
                self.assertTrue(reply.json["error"].startswith(error), reply.json["error"])
        self.s.control("users", {"username": "cmc", "status": "active"})
        self.assertEnvelope(self.read("issue", "show", "krz/gitbay", "42"), 200, 0)

    def test_bad_seeds_are_refused(self):
        for body in ({"kind": "wiki", "repo": "krz/gitbay", "data": {}},
                     {"kind": "issue", "repo": "krz", "data": {}},
                     {"kind": "issue", "repo": "krz/gitbay", "data": []},
                     {"kind": "issue", "repo": "krz/gitbay", "data": {"number": 0}},
                     {"kind": "issue", "repo": "krz/gitbay", "data": {}, "extra": 1}):
            with self.subTest(body=body):
                reply = self.s.request("POST", "/_standin/items", {}, json.dumps(body).encode())
                self.assertEqual(reply.status, 400, reply.body)


class RepoWatchTests(StandinCase):
    """`repo mute|watch|unwatch`: one watch state per (account, repository)."""

    def watch_states(self):
        return self.s.control("state")["watch_states"]

    def test_each_change_answers_the_state_it_leaves(self):
        self.notice(repo="krz/gitbay")
        for change, state in (("mute", "muted"), ("watch", "watching"), ("unwatch", "default")):
            with self.subTest(change=change):
                reply = self.cmd("repo", change, "krz/gitbay")
                self.assertEnvelope(reply, 200, 0)
                self.assertEqual(reply.json["data"], {"repo": "krz/gitbay", "state": state})
        # The default leaves no trace; a second unwatch is still fine.
        self.assertEqual(self.watch_states(), [])
        self.assertEqual(self.cmd("repo", "unwatch", "krz/gitbay").json["data"]["state"], "default")

    def test_states_are_per_account(self):
        alba = self.user_with_token("alba")
        self.s.control("repos", {"repo": "krz/gitbay"})
        self.cmd("repo", "mute", "krz/gitbay")
        self.cmd("repo", "watch", "krz/gitbay", token=alba)
        self.assertEqual(self.watch_states(), [
            {"username": "cmc", "repo": "krz/gitbay", "state": "muted"},
            {"username": "alba", "repo": "krz/gitbay", "state": "watching"}])

    def test_a_muted_repository_files_no_new_rows_for_that_user(self):
        alba = self.user_with_token("alba")
        kept = self.notice(repo="krz/gitbay")
        self.cmd("repo", "mute", "krz/gitbay")
        before = len(self.s.control("state")["notifications"])
        self.assertEqual(self.s.control("notifications", {"username": "cmc", "repo": "krz/gitbay"}),
                         {"id": None})
        self.assertEqual(self.s.control("notifications/bulk",
                                        {"username": "cmc", "count": 3, "repo": "krz/gitbay"}),
                         {"ids": []})
        self.assertEqual(len(self.s.control("state")["notifications"]), before)
        # What was there stays, unread: a mute reads nothing.
        self.assertEqual([row["id"] for row in self.read("notifications", "list").json["data"]], [kept])
        # Other repositories, and other users of this one, still file rows.
        self.assertIsNotNone(self.notice(repo="ops/infra"))
        self.assertIsNotNone(self.notice("alba", repo="krz/gitbay"))
        self.assertEqual(len(self.read("notifications", "list", token=alba).json["data"]), 1)
        # Unwatch undoes the mute.
        self.cmd("repo", "unwatch", "krz/gitbay")
        self.assertIsNotNone(self.notice(repo="krz/gitbay"))

    def test_a_muted_repository_sends_no_push(self):
        self.cmd("notifications", "device", "add", "--label", "laptop", stdin="token-1")
        self.notice(repo="krz/gitbay")
        self.cmd("repo", "mute", "krz/gitbay")
        self.s.control("notifications", {"username": "cmc", "repo": "krz/gitbay"})
        self.assertEqual(len(self.s.control("state")["pushes"]), 1)

    def test_a_missing_or_unreadable_repository_is_404_with_the_same_words(self):
        self.s.control("repos", {"repo": "krz/secret", "readers": ["alice"]})
        for repo in ("krz/secret", "krz/nothing"):
            for change in ("mute", "watch", "unwatch"):
                with self.subTest(repo=repo, change=change):
                    self.assertEnvelope(self.cmd("repo", change, repo), 404, 3,
                                        f"repository {repo} not found")
        alice = self.user_with_token("alice")
        self.assertEnvelope(self.cmd("repo", "mute", "krz/secret", token=alice), 200, 0)
        self.assertEqual(self.watch_states(), [{"username": "alice", "repo": "krz/secret", "state": "muted"}])

    def test_a_notices_repository_exists_without_being_seeded(self):
        self.notice(repo="ops/infra")
        self.assertEnvelope(self.cmd("repo", "mute", "ops/infra"), 200, 0)

    def test_usage_errors(self):
        for argv in (["repo", "mute"], ["repo", "mute", "krz/gitbay", "extra"], ["repo", "watch", "--all"]):
            with self.subTest(argv=argv):
                self.assertEnvelope(self.cmd(*argv), 400, 2, f"usage: repo {argv[1]} <owner/name>")
        self.assertEnvelope(self.cmd("repo"), 404, 3, "unknown command repo")
        self.assertEnvelope(self.cmd("repo", "ignore", "krz/gitbay"), 404, 3, "unknown command repo ignore")

    def test_they_are_writes(self):
        self.notice(repo="krz/gitbay")
        self.assertEnvelope(self.read("repo", "mute", "krz/gitbay"), 400, 2,
                            "repo mute changes state; POST it to /api/v1/cmd")
        reader = self.s.control("tokens", {"username": "cmc", "scope": "read"})["token"]
        self.assertEnvelope(self.cmd("repo", "mute", "krz/gitbay", token=reader), 403, 4,
                            "this token is read-only; repo mute modifies state")
        self.assertEqual(self.watch_states(), [])

    def test_they_draw_on_the_write_buckets(self):
        self.notice(repo="krz/gitbay")
        self.s.control("config", {"write_burst": 1})
        self.assertEqual(self.cmd("repo", "mute", "krz/gitbay").status, 200)
        reply = self.cmd("repo", "unwatch", "krz/gitbay")
        self.assertEqual((reply.status, reply.headers["Retry-After"]), (429, "5"))
        self.s.control("config", {"write_burst": 100, "writes_per_minute": 1})
        self.assertEqual(self.cmd("repo", "unwatch", "krz/gitbay").status, 200)
        reply = self.cmd("repo", "mute", "krz/gitbay")
        self.assertEnvelope(reply, 403, 4)
        self.assertTrue(reply.json["error"].startswith("too many writes"))
        self.assertEqual(self.watch_states(), [])

    def test_a_watch_state_changes_no_etag(self):
        self.notice(repo="krz/gitbay")
        etag = self.etag()
        self.cmd("repo", "mute", "krz/gitbay")
        self.assertEqual(self.etag(), etag)


class TokenOverTheAPITests(StandinCase):
    """Since v1.30.0 a full-scope API token runs `token create|list|revoke` itself; the
    credentials rework made `token create` default to read and refused minting to --ttl tokens."""

    def test_a_full_scope_token_mints_lists_and_revokes(self):
        reply = self.cmd("token", "create", "--name", "laptop", "--scope", "full")
        self.assertEqual(reply.status, 200, reply.body)
        data = reply.json["data"]
        self.assertEqual((data["name"], data["scope"]), ("laptop", "full"))
        self.assertRegex(data["token"], r"^gb_[0-9a-f]{40}$")
        self.assertEqual(self.read("whoami", token=data["token"]).status, 200)
        rows = self.read("token", "list").json["data"]
        self.assertEqual([(row["name"], row["created_by"]) for row in rows],
                         [("token-1", "web"), ("laptop", "token token-1")])
        self.assertTrue(all("token" not in row for row in rows))

        reply = self.cmd("token", "revoke", "laptop")
        self.assertEqual(reply.json["data"], {"revoked": "laptop", "created": {"tokens": 0, "keys": 0},
                                              "created_revoked": False})
        self.assertEqual(self.read("whoami", token=data["token"]).status, 401)

    def test_revoke_counts_what_the_token_minted_and_leaves_it(self):
        minter = self.cmd("token", "create", "--name", "minter", "--scope", "full").json["data"]["token"]
        minted = self.cmd("token", "create", "--name", "child", token=minter).json["data"]["token"]
        reply = self.cmd("token", "revoke", "minter")
        self.assertEqual(reply.json["data"]["created"], {"tokens": 1, "keys": 0})
        self.assertFalse(reply.json["data"]["created_revoked"])
        self.assertEqual(self.read("whoami", token=minted).status, 200)
        self.assertEnvelope(self.cmd("token", "revoke", "minter"), 404, 3, 'no token named "minter"')

    def test_token_create_without_scope_makes_a_read_token(self):
        data = self.cmd("token", "create", "--name", "plain").json["data"]
        self.assertEqual(data["scope"], "read")
        self.assertEqual(self.read("notifications", "list", token=data["token"]).status, 200)
        self.assertEnvelope(self.cmd("notifications", "read", "--all", token=data["token"]), 403, 4,
                            "this token is read-only; notifications read modifies state")

    def test_a_read_scoped_token_may_not_manage_tokens(self):
        reader = self.s.control("tokens", {"username": "cmc", "scope": "read"})["token"]
        for argv in (["token", "create", "--name", "x"], ["token", "list"], ["token", "revoke", "token-1"]):
            self.assertEnvelope(self.cmd(*argv, token=reader), 403, 4,
                                f"this token is read-only; {' '.join(argv[:2])} manages credentials")
        self.assertEqual(self.read("whoami").status, 200)

    def test_a_token_with_a_ttl_cannot_mint(self):
        short = self.cmd("token", "create", "--name", "short", "--scope", "full", "--ttl", "30d").json["data"]
        self.assertEnvelope(self.cmd("token", "create", "--name", "x", "--scope", "full", token=short["token"]),
                            403, 4, "token create creates a credential, and the one this request came with "
                            "expires; use a token or key without an expiry")
        self.assertEqual(self.read("token", "list", token=short["token"]).status, 200)
        self.assertEqual(self.cmd("token", "revoke", "short", token=short["token"]).status, 200)

    def test_create_and_revoke_are_writes(self):
        self.assertEnvelope(self.read("token", "create", "--name", "x"), 400, 2,
                            "token create changes state; POST it to /api/v1/cmd")
        self.s.control("config", {"write_burst": 100, "writes_per_minute": 1})
        self.assertEqual(self.cmd("token", "create", "--name", "a").status, 200)
        reply = self.cmd("token", "revoke", "a")
        self.assertEnvelope(reply, 403, 4)
        self.assertTrue(reply.json["error"].startswith("too many writes"))
        self.s.control("config", {"write_burst": 1, "writes_per_minute": 60})
        self.s.control("clock", {"advance": 60})
        self.assertEqual(self.cmd("token", "revoke", "a").status, 200)
        self.assertEqual(self.cmd("token", "create", "--name", "b").status, 429)


class CommentAndReactionTests(StandinCase):
    """`issue|mr comment` and `issue|mr react`, as gitbay's runComment and react.go have them."""

    def setUp(self):
        super().setUp()
        self.s.control("items", {"kind": "issue", "repo": "krz/gitbay",
                                 "data": {"number": 12, "title": "Crash", "state": "open", "author": "alice"}})
        self.s.control("items", {"kind": "mr", "repo": "krz/gitbay",
                                 "data": {"number": 7, "title": "Fix", "state": "open", "author": "cmc"}})
        for user in ("alice", "bob", "carol"):
            self.s.control("users", {"username": user})

    def show(self, kind="issue", number="12", token=None):
        return self.read(kind, "show", "krz/gitbay", number, token=token).json["data"]

    def inbox(self, username):
        return [(n["username"], n["actor"], n["summary"], n["path"]) for n in self.s.control("state")["notifications"]
                if n["username"] == username]

    def test_a_comment_from_message_or_stdin_is_on_the_thread(self):
        reply = self.cmd("issue", "comment", "krz/gitbay", "12", "--message", "Reproduced.")
        self.assertEqual((reply.status, reply.json["data"]), (200, {"number": 12}))
        reply = self.cmd("issue", "comment", "krz/gitbay", "12", "--file", "-", "--format", "org", stdin="* Notes\n")
        self.assertEqual(reply.json["data"], {"number": 12})
        comments = self.show()["comments"]
        self.assertEqual([(c["author"], c["body"], c["body_format"]) for c in comments],
                         [("cmc", "Reproduced.", "md"), ("cmc", "* Notes\n", "org")])
        self.assertLess(comments[0]["id"], comments[1]["id"])
        self.assertEqual(self.cmd("mr", "comment", "krz/gitbay", "7", "--message", "LGTM").json["data"], {"number": 7})
        self.assertEqual(self.show("mr", "7")["comments"][0]["body"], "LGTM")

    def test_a_comment_tells_participants_and_mentions_never_its_author(self):
        self.cmd("issue", "comment", "krz/gitbay", "12", "--message", "@bob and @cmc, see this")
        self.assertEqual(self.inbox("alice"), [("alice", "cmc", "commented on issue #12", "krz/gitbay/issues/12")])
        self.assertEqual(self.inbox("bob"), [("bob", "cmc", "commented on issue #12", "krz/gitbay/issues/12")])
        self.assertEqual(self.inbox("cmc"), [])
        self.assertEqual(self.inbox("carol"), [])
        self.cmd("mr", "comment", "krz/gitbay", "7", "--message", "ping @carol")
        self.assertEqual(self.inbox("carol"), [("carol", "cmc", "commented on merge request !7", "krz/gitbay/mrs/7")])

    def test_a_comment_is_not_idempotent(self):
        for _ in range(2):
            self.cmd("issue", "comment", "krz/gitbay", "12", "--message", "twice")
        self.assertEqual([c["body"] for c in self.show()["comments"]], ["twice", "twice"])

    def test_stdin_is_read_up_to_64_kib(self):
        self.assertEqual(self.cmd("issue", "comment", "krz/gitbay", "12", "--file", "-", stdin="a" * 70_000).status, 200)
        self.assertEqual(len(self.show()["comments"][0]["body"]), 64 * 1024)

    def test_empty_and_conflicting_comments_are_usage_errors(self):
        empty = "empty comment; use --message or --file -"
        self.assertEnvelope(self.cmd("issue", "comment", "krz/gitbay", "12", "--message", " \n\t"), 400, 2, empty)
        self.assertEnvelope(self.cmd("issue", "comment", "krz/gitbay", "12"), 400, 2, empty)
        self.assertEnvelope(self.cmd("issue", "comment", "krz/gitbay", "12", "--file", "-", stdin="  "), 400, 2, empty)
        for argv in (["--message", "x", "--file", "-"], ["--file", "notes.txt"], ["--message", "x", "--format", "html"],
                     []):
            reply = self.cmd("issue", "comment", "krz/gitbay", *(argv or ["--message", "x", "extra"]))
            self.assertEnvelope(reply, 400, 2)
        self.assertNotIn("comments", self.show())

    def test_comment_and_react_name_what_is_missing(self):
        self.assertEnvelope(self.cmd("issue", "comment", "krz/nope", "12", "--message", "x"), 404, 3,
                            "repository krz/nope not found")
        self.assertEnvelope(self.cmd("issue", "comment", "krz/gitbay", "99", "--message", "x"), 404, 3,
                            "issue #99 not found in krz/gitbay")
        self.assertEnvelope(self.cmd("mr", "react", "krz/gitbay", "99", "+1"), 404, 3, "MR !99 not found in krz/gitbay")
        self.assertEnvelope(self.cmd("issue", "react", "krz/gitbay", "12", "--comment", "999", "+1"), 404, 3,
                            "comment 999 not found on #12")
        self.s.control("repos", {"repo": "krz/old", "archived": True})
        self.s.control("items", {"kind": "issue", "repo": "krz/old", "data": {"number": 1, "title": "t"}})
        self.assertEnvelope(self.cmd("issue", "comment", "krz/old", "1", "--message", "x"), 403, 4)
        self.assertEnvelope(self.cmd("issue", "react", "krz/old", "1", "+1"), 403, 4)

    def test_a_reaction_is_one_state_per_user_and_remove_takes_it_back(self):
        alice = self.s.control("tokens", {"username": "alice", "scope": "full"})["token"]
        for _ in range(2):
            self.assertEqual(self.cmd("issue", "react", "krz/gitbay", "12", "+1").json["data"], {"reaction": "+1"})
        self.assertEqual(self.show()["reactions"], [{"count": 1, "me": True, "reaction": "+1"}])
        self.cmd("issue", "react", "krz/gitbay", "12", "+1", token=alice)
        self.assertEqual(self.show(token=alice)["reactions"], [{"count": 2, "me": True, "reaction": "+1"}])
        reply = self.cmd("issue", "react", "krz/gitbay", "12", "+1", "--remove")
        self.assertEqual(reply.json["data"], {"reaction": "+1", "removed": True})
        self.assertEqual(self.show()["reactions"], [{"count": 1, "me": False, "reaction": "+1"}])
        self.cmd("issue", "react", "krz/gitbay", "12", "+1", "--remove", token=alice)
        self.assertNotIn("reactions", self.show())
        # A reaction files no notice.
        self.assertEqual(self.inbox("alice"), [])

    def test_a_reaction_on_a_comment(self):
        self.cmd("mr", "comment", "krz/gitbay", "7", "--message", "LGTM")
        comment = self.show("mr", "7")["comments"][0]["id"]
        reply = self.cmd("mr", "react", "krz/gitbay", "7", "--comment", str(comment), "rocket")
        self.assertEqual(reply.json["data"], {"reaction": "rocket", "comment": comment})
        self.assertEqual(self.show("mr", "7")["comments"][0]["reactions"], [{"count": 1, "me": True, "reaction": "rocket"}])
        self.assertNotIn("reactions", self.show("mr", "7"))

    def test_an_unknown_reaction_lists_the_known_ones(self):
        self.assertEnvelope(self.cmd("issue", "react", "krz/gitbay", "12", "thumbsup"), 400, 2,
                            'unknown reaction "thumbsup"; one of +1, -1, laugh, hooray, confused, heart, rocket, eyes')

    def test_comments_and_reactions_are_writes(self):
        reader = self.s.control("tokens", {"username": "cmc", "scope": "read"})["token"]
        self.assertEnvelope(self.cmd("issue", "comment", "krz/gitbay", "12", "--message", "x", token=reader), 403, 4,
                            "this token is read-only; issue comment modifies state")
        self.assertEnvelope(self.cmd("mr", "react", "krz/gitbay", "7", "+1", token=reader), 403, 4,
                            "this token is read-only; mr react modifies state")
        self.assertEnvelope(self.read("issue", "react", "krz/gitbay", "12", "+1"), 400, 2,
                            "issue react changes state; POST it to /api/v1/cmd")
        self.s.control("config", {"write_burst": 1})
        self.assertEqual(self.cmd("issue", "react", "krz/gitbay", "12", "+1").status, 200)
        self.assertEqual(self.cmd("mr", "comment", "krz/gitbay", "7", "--message", "x").status, 429)
        self.s.control("config", {"write_burst": 100, "writes_per_minute": 1})
        self.s.control("clock", {"advance": 60})
        self.assertEqual(self.cmd("issue", "comment", "krz/gitbay", "12", "--message", "x").status, 200)
        reply = self.cmd("issue", "react", "krz/gitbay", "12", "heart")
        self.assertEnvelope(reply, 403, 4)
        self.assertTrue(reply.json["error"].startswith("too many writes"))


class WebRouteTests(StandinCase):
    def test_item_and_inbox_pages(self):
        for path in ("/krz/gitbay/issues/12", "/krz/gitbay/mrs/3", "/krz/gitbay/builds/88",
                     "/notifications"):
            with self.subTest(path=path):
                reply = self.s.request("GET", path)
                self.assertEqual(reply.status, 200)
                self.assertIn("text/html", reply.headers["Content-Type"])

    def test_other_paths_are_404(self):
        for path in ("/krz/gitbay/merge_requests/3", "/krz/gitbay/issues/0",
                     "/krz/gitbay/issues/x", "/nope"):
            with self.subTest(path=path):
                self.assertEqual(self.s.request("GET", path).status, 404)


class FaultTests(StandinCase):
    def fault(self, **spec):
        return self.s.control("faults", spec)["id"]

    def test_status_fault_with_body_and_headers(self):
        self.fault(match={"argv_prefix": ["notifications"]}, status=502, body="bad gateway",
                   headers={"X-Test": "1"})
        reply = self.read("notifications", "list")
        self.assertEqual((reply.status, reply.body, reply.headers["X-Test"]),
                         (502, b"bad gateway", "1"))
        self.assertEqual(self.read("notifications", "list").status, 200)  # times defaults to 1

    def test_times_and_until_cleared(self):
        self.fault(match={"method": "GET"}, status=500, times=2)
        self.assertEqual([self.read("whoami").status for _ in range(3)], [500, 500, 200])
        self.fault(match={"path_prefix": "/api/v1/read"}, status=418, times=0)
        self.assertEqual([self.read("whoami").status for _ in range(3)], [418] * 3)
        self.s.control("faults/clear", {})
        self.assertEqual(self.read("whoami").status, 200)

    def test_match_by_username(self):
        alba = self.user_with_token("alba")
        self.fault(match={"username": "alba"}, status=500)
        self.assertEqual(self.read("whoami").status, 200)
        self.assertEqual(self.read("whoami", token=alba).status, 500)

    def test_delay(self):
        self.fault(delay=0.3)
        started = time.monotonic()
        self.assertEqual(self.read("whoami").status, 200)
        self.assertGreaterEqual(time.monotonic() - started, 0.3)

    def test_stall_until_cleared(self):
        self.fault(stall=True)
        connection = self.s.connection()
        connection.request("GET", "/api/v1/read?argv=whoami",
                           headers={"Authorization": "Bearer " + self.token})
        waited = self.s.request("GET", "/_standin/requests/wait?count=1&timeout=10").json
        self.assertFalse(waited["timed_out"])
        self.assertEqual((waited["requests"][0]["fault"], waited["requests"][0]["status"]),
                         ("stall", None))
        self.s.control("faults/clear", {})
        with self.assertRaises(http.client.RemoteDisconnected):
            connection.getresponse()
        connection.close()

    def test_stalled_client_times_out(self):
        self.fault(stall=True)
        connection = self.s.connection(timeout=0.3)
        with self.assertRaises(TimeoutError):
            self.s.read(["whoami"], self.token, connection=connection)
        connection.close()

    def test_drip(self):
        self.s.control("notifications/bulk", {"username": "cmc", "count": 10})
        plain = self.read("notifications", "list").body
        self.fault(drip=5000)
        started = time.monotonic()
        reply = self.read("notifications", "list")
        self.assertEqual(reply.body, plain)
        self.assertGreaterEqual(time.monotonic() - started, 0.05 * (len(plain) // 250))

    def test_close(self):
        self.fault(close=True)
        with self.assertRaises(http.client.RemoteDisconnected):
            self.read("whoami")
        self.assertEqual(self.s.control("requests")["requests"][0]["fault"], "close")

    def test_truncate(self):
        self.fault(truncate=10)
        connection = self.s.connection()
        connection.request("GET", "/api/v1/read?argv=whoami",
                           headers={"Authorization": "Bearer " + self.token})
        response = connection.getresponse()
        self.assertEqual(response.status, 200)
        self.assertGreater(int(response.headers["Content-Length"]), 10)
        with self.assertRaises(http.client.IncompleteRead) as caught:
            response.read()
        self.assertEqual(len(caught.exception.partial), 10)
        connection.close()

    def test_body_bytes(self):
        self.fault(body_bytes=200000)
        reply = self.read("whoami")
        self.assertEqual(len(reply.body), 200000)
        self.assertEqual(reply.json["data"]["username"], "cmc")

    def test_body_bytes_pads_before_gzip(self):
        self.fault(body_bytes=MIB)
        reply = self.read("whoami", headers={"Accept-Encoding": "gzip"})
        self.assertLess(len(reply.body), MIB // 100)
        self.assertEqual(len(gzip.decompress(reply.body)), MIB)

    def test_bad_gzip(self):
        self.fault(bad_gzip=True)
        reply = self.read("whoami", headers={"Accept-Encoding": "gzip"})
        self.assertEqual(reply.headers["Content-Encoding"], "gzip")
        with self.assertRaises(gzip.BadGzipFile):
            gzip.decompress(reply.body)

    def test_redirect(self):
        self.fault(redirect="http://elsewhere.invalid/steal")
        reply = self.read("whoami")
        self.assertEqual((reply.status, reply.headers["Location"]),
                         (302, "http://elsewhere.invalid/steal"))

    def test_bad_fault_is_refused(self):
        reply = self.s.request("POST", "/_standin/faults", body=json.dumps(
            {"status": 500, "close": True}))
        self.assertEqual(reply.status, 400)


class RequestLogTests(StandinCase):
    def test_log_records_what_the_client_sent(self):
        self.cmd("notifications", "device", "add", "--label", "x", stdin="tok",
                 headers={"X-Trace": "abc"})
        self.read("notifications", "list", token="gb_unknown")
        cmd, read = self.s.control("requests")["requests"]
        self.assertEqual((cmd["method"], cmd["path"], cmd["status"]), ("POST", "/api/v1/cmd", 200))
        self.assertEqual(cmd["argv"], ["notifications", "device", "add", "--label", "x"])
        self.assertEqual(cmd["stdin"], "tok")
        self.assertEqual(cmd["body"], {"argv": cmd["argv"], "stdin": "tok"})
        self.assertEqual(cmd["username"], "cmc")
        self.assertIn(["Authorization", "Bearer " + self.token], cmd["headers"])
        self.assertIn(["X-Trace", "abc"], cmd["headers"])
        self.assertEqual((read["query_argv"], read["username"], read["status"]),
                         (["notifications", "list"], None, 401))
        self.assertLess(cmd["time"], read["time"])

    def test_connection_serials_prove_reuse(self):
        connection = self.s.connection()
        for _ in range(3):
            self.assertEqual(self.s.read(["whoami"], self.token, connection=connection).status,
                             200)
        connection.close()
        self.read("whoami")
        entries = self.s.control("requests")["requests"]
        serials = [e["connection"] for e in entries]
        self.assertEqual(len(set(serials[:3])), 1)
        self.assertNotEqual(serials[3], serials[0])
        self.assertEqual([e["connection_request"] for e in entries], [1, 2, 3, 1])

    def test_since_and_clear(self):
        self.read("whoami")
        self.read("dashboard")
        later = self.s.control("requests?since=1")["requests"]
        self.assertEqual([e["argv"] for e in later], [["dashboard"]])
        self.s.control("requests/clear", {})
        self.assertEqual(self.s.control("requests")["requests"], [])

    def test_wait_times_out(self):
        waited = self.s.control("requests/wait?count=1&timeout=0.1")
        self.assertTrue(waited["timed_out"])


class ProcessTests(unittest.TestCase):
    def test_ready_line_is_exact(self):
        standin = Standin()
        try:
            self.assertEqual(standin.ready_line,
                             json.dumps({"url": f"http://127.0.0.1:{standin.port}",
                                         "port": standin.port}) + "\n")
            self.assertEqual(standin.request("GET", "/notifications").status, 200)
        finally:
            standin.stop()

    def test_sigterm_exits_cleanly_and_stdin_eof_does_not(self):
        standin = Standin(stdin=subprocess.PIPE)
        standin.process.stdin.close()
        self.assertEqual(standin.request("GET", "/").status, 200)
        standin.process.send_signal(signal.SIGTERM)
        self.assertEqual(standin.process.wait(timeout=10), 0)
        standin.stop()

    def test_sigint_exits_cleanly(self):
        standin = Standin()
        standin.process.send_signal(signal.SIGINT)
        self.assertEqual(standin.process.wait(timeout=10), 0)
        standin.stop()

    def test_stops_when_its_parent_goes_away(self):
        # A parent that forwards the ready line and exits; the server's stderr is our pipe,
        # so its end of file says the orphaned server has exited.
        parent_code = ("import subprocess, sys\n"
                       "server = subprocess.Popen([sys.executable, sys.argv[1], '--port', '0'],"
                       " stdout=subprocess.PIPE)\n"
                       "sys.stdout.write(server.stdout.readline().decode())\n")
        parent = subprocess.Popen([sys.executable, "-c", parent_code, SERVER],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        port = json.loads(parent.stdout.readline())["port"]
        self.assertEqual(parent.wait(timeout=10), 0)
        parent.stdout.close()
        readable, _, _ = select.select([parent.stderr], [], [], 10)
        self.assertTrue(readable)
        self.assertIn(b"parent process gone; stopping", parent.stderr.read())
        parent.stderr.close()
        with self.assertRaises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port), timeout=10).close()

    def test_tls(self):
        standin = Standin("--tls-cert", os.path.join(TLS, "server.pem"),
                          "--tls-key", os.path.join(TLS, "server-key.pem"))
        try:
            self.assertEqual(standin.url, f"https://127.0.0.1:{standin.port}")
            context = ssl.create_default_context(cafile=os.path.join(TLS, "ca.pem"))
            connection = http.client.HTTPSConnection("127.0.0.1", standin.port,
                                                     context=context, timeout=10)
            connection.request("GET", "/api/v1/read?argv=whoami")
            self.assertEqual(connection.getresponse().status, 401)
            connection.close()
            wrong = ssl.create_default_context(cafile=os.path.join(TLS, "other-ca.pem"))
            with self.assertRaises(ssl.SSLCertVerificationError):
                with socket.create_connection(("127.0.0.1", standin.port), timeout=10) as raw:
                    wrong.wrap_socket(raw, server_hostname="127.0.0.1")
        finally:
            standin.stop()

    def test_site_url_is_the_push_instance(self):
        standin = Standin("--site-url", "https://GitBay.org:443/")
        try:
            standin.control("users", {"username": "cmc"})
            token = standin.control("tokens", {"username": "cmc"})["token"]
            standin.cmd(["notifications", "device", "add", "--label", "x"], token, stdin="tok")
            standin.control("notifications", {"username": "cmc"})
            payload = standin.control("state")["pushes"][0]["payload"]
            self.assertEqual(payload["instance"], "https://GitBay.org:443/")
        finally:
            standin.stop()

    def test_demo(self):
        with tempfile.TemporaryDirectory() as directory:
            token_file = os.path.join(directory, "token")
            standin = Standin("--demo", "--token-file", token_file, "--demo-interval", "0.2")
            try:
                self.assertEqual(os.stat(token_file).st_mode & 0o777, 0o600)
                with open(token_file) as file:
                    token = file.read().strip()
                seeded = standin.read(["notifications", "list"], token).json["data"]
                self.assertGreaterEqual(len(seeded), 5)
                self.assertEqual({row["kind"] for row in seeded}, {"issue", "mr", "build"})
                deadline = time.monotonic() + 10
                while (len(standin.control("state")["notifications"]) == len(seeded)
                       and time.monotonic() < deadline):
                    time.sleep(0.05)  # polling the state for the demo's next notice
                self.assertGreater(len(standin.control("state")["notifications"]), len(seeded))
                self.assertIn(f"gbnotifyctl account add {standin.url} < {token_file}",
                              standin.stderr_text())
                # Every notice's item can be shown, the later ones' too.
                rows = standin.read(["notifications", "list"], token).json["data"]
                for row in rows:
                    owner, repo, segment, number = row["path"].split("/")
                    noun = {"issues": "issue", "mrs": "mr", "builds": "build"}[segment]
                    shown = standin.read([noun, "show", f"{owner}/{repo}", number], token)
                    self.assertEqual(shown.status, 200, row["path"])
            finally:
                standin.stop()

    def test_demo_relay_gets_every_other_notice_on_each_devices_topic(self):
        relay = Relay()
        self.addCleanup(relay.stop)
        with tempfile.TemporaryDirectory() as directory:
            token_file = os.path.join(directory, "token")
            standin = Standin("--demo", "--token-file", token_file, "--demo-interval", "0.2",
                              "--demo-relay", relay.url + "/")
            self.addCleanup(standin.stop)
            with open(token_file) as file:
                token = file.read().strip()
            topic = "ab" * 32
            standin.cmd(["notifications", "device", "add", "--label", "demo"], token, stdin=topic)
            stream = relay.subscribe(topic)
            self.addCleanup(stream.close)
            self.assertEqual(stream.event()["event"], "open")
            first, second = [json.loads(message) for _, message in stream.messages(2)]
            for payload in (first, second):
                self.assertEqual((payload["instance"], payload["user"]), (standin.url, "demo"))
            # Numbered from 100 by step: steps 0 and 2 go out, step 1 waits for a poll.
            self.assertEqual([first["path"].rsplit("/", 1)[1], second["path"].rsplit("/", 1)[1]],
                             ["100", "102"])
            self.assertIn(f"published to {relay.url}", standin.stderr_text())


if __name__ == "__main__":
    unittest.main()
