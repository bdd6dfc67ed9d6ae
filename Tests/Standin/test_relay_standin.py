"""Tests of the relay stand-in: the ntfy stream, `since=`, keepalives, publishing, the token and
every scripted fault. Run from the package root:

    python3 -m unittest discover -s Tests/Standin -v
"""

import http.client
import json
import os
import socket
import subprocess
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.path.join(HERE, "relay_standin.py")


class Relay:
    def __init__(self, *arguments):
        self.process = subprocess.Popen([sys.executable, SERVER, "--port", "0", *arguments],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        ready = json.loads(self.process.stdout.readline())
        self.url, self.port = ready["url"], ready["port"]

    def stop(self):
        self.process.terminate()
        self.process.wait(10)
        self.process.stdout.close()
        self.process.stderr.close()

    def call(self, method, path, body=None, headers=None):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
        connection.request(method, path, data, headers or {})
        response = connection.getresponse()
        text = response.read()
        connection.close()
        return response.status, json.loads(text)

    def control(self, route, body=None):
        status, reply = self.call("POST" if body is not None else "GET", "/_relay/" + route, body)
        assert status == 200, (status, reply)
        return reply

    def subscribe(self, topic, since=None, headers=None):
        return Subscription(self.port, topic, since, headers)


class Subscription:
    """A raw stream reader: undoes the chunked framing and splits lines itself."""

    def __init__(self, port, topic, since, headers):
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        path = f"/{topic}/json" + (f"?since={since}" if since else "")
        self.connection.request("GET", path, headers=headers or {})
        self.response = self.connection.getresponse()
        self.buffer = b""

    def line(self):
        while b"\n" not in self.buffer:
            chunk = self.response.read1(65536)
            if not chunk:
                raise EOFError(self.buffer)
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line

    def event(self):
        return json.loads(self.line())

    def close(self):
        self.connection.close()


class RelayStandinTests(unittest.TestCase):
    def setUp(self):
        self.relay = Relay("--keepalive", "0.3")
        self.addCleanup(self.relay.stop)

    def subscribe(self, *arguments, **keywords):
        subscription = self.relay.subscribe(*arguments, **keywords)
        self.addCleanup(subscription.close)
        return subscription

    def test_a_stream_opens_then_carries_published_messages(self):
        stream = self.subscribe("t1")
        self.assertEqual(stream.response.status, 200)
        self.assertEqual(stream.response.getheader("Content-Type"), "application/x-ndjson; charset=utf-8")
        self.assertEqual(stream.event()["event"], "open")
        published = self.relay.control("publish", {"topic": "t1", "message": "hello"})
        event = stream.event()
        self.assertEqual((event["event"], event["id"], event["message"], event["topic"]),
                         ("message", published["id"], "hello", "t1"))
        self.assertEqual(len(event["id"]), 12)

    def test_each_message_line_written_is_recorded_with_its_time(self):
        stream = self.subscribe("t9")
        stream.event()
        self.relay.control("send", {"topic": "t9", "text": "not a message\n"})
        before = time.monotonic()
        published = self.relay.control("publish", {"topic": "t9", "message": "timed"})
        self.assertEqual(stream.line(), b"not a message")
        self.assertEqual(stream.event()["id"], published["id"])
        after = time.monotonic()
        sent = self.relay.control("sent")["sent"]
        self.assertEqual([entry["id"] for entry in sent], [published["id"]])
        self.assertTrue(before <= sent[0]["monotonic"] <= after, (before, sent, after))

    def test_ntfy_publish_by_post(self):
        stream = self.subscribe("t2")
        stream.event()
        status, reply = self.relay.call("POST", "/t2", b'{"x":1}')
        self.assertEqual(status, 200)
        self.assertEqual(stream.event()["message"], '{"x":1}')
        self.assertEqual(reply["event"], "message")

    def test_since_an_id_replays_what_came_after_it(self):
        ids = [self.relay.control("publish", {"topic": "t3", "message": str(n)})["id"] for n in range(5)]
        stream = self.subscribe("t3", since=ids[1])
        stream.event()
        self.assertEqual([stream.event()["message"] for _ in range(3)], ["2", "3", "4"])

    def test_since_all_an_unknown_id_and_a_time(self):
        for n in range(2):
            self.relay.control("publish", {"topic": "t4", "message": str(n)})
        for since in ["all", "unknownid123", "1"]:
            stream = self.subscribe("t4", since=since)
            stream.event()
            self.assertEqual([stream.event()["message"] for _ in range(2)], ["0", "1"], since)

    def test_no_since_means_only_new_messages(self):
        self.relay.control("publish", {"topic": "t5", "message": "old"})
        stream = self.subscribe("t5")
        stream.event()
        self.relay.control("publish", {"topic": "t5", "message": "new"})
        self.assertEqual(stream.event()["message"], "new")

    def test_keepalives_come_at_the_configured_period(self):
        stream = self.subscribe("t6")
        stream.event()
        started = time.monotonic()
        self.assertEqual(stream.event()["event"], "keepalive")
        self.assertEqual(stream.event()["event"], "keepalive")
        self.assertLess(time.monotonic() - started, 5)

    def test_the_keepalive_period_can_change_at_run_time(self):
        relay = Relay("--keepalive", "100")
        self.addCleanup(relay.stop)
        relay.control("config", {"keepalive": 0.2})
        stream = relay.subscribe("t14")
        self.addCleanup(stream.close)
        stream.event()
        self.assertEqual(stream.event()["event"], "keepalive")

    def test_subscriptions_are_logged_and_waited_for(self):
        self.subscribe("t7", since="abc", headers={"Authorization": "Bearer x"}).event()
        reply = self.relay.control("subscriptions/wait?count=1&timeout=5")
        self.assertEqual(reply["subscriptions"], [{"topic": "t7", "since": "abc", "authorization": "Bearer x"}])
        self.assertFalse(reply["timed_out"])
        self.assertTrue(self.relay.control("subscriptions/wait?count=2&timeout=0.2")["timed_out"])

    def test_a_token_is_required_once_configured(self):
        self.relay.control("config", {"token": "tk_secret"})
        refused = self.relay.subscribe("t8")
        self.addCleanup(refused.close)
        self.assertEqual(refused.response.status, 401)
        self.assertEqual(self.relay.control("state")["subscriptions"][0]["authorization"], None)
        accepted = self.subscribe("t8", headers={"Authorization": "Bearer tk_secret"})
        self.assertEqual(accepted.event()["event"], "open")

    def test_disconnect_after_messages_cuts_a_line_in_half(self):
        self.relay.control("faults", {"kind": "disconnect", "topic": "t9", "after_messages": 2})
        stream = self.subscribe("t9")
        stream.event()
        for n in range(4):
            self.relay.control("publish", {"topic": "t9", "message": str(n)})
        self.assertEqual([stream.event()["message"] for _ in range(2)], ["0", "1"])
        with self.assertRaises((EOFError, http.client.IncompleteRead)):
            stream.line()
        # The fault is spent: the next subscription resumes normally.
        again = self.subscribe("t9", since="all")
        again.event()
        self.assertEqual([again.event()["message"] for _ in range(4)], ["0", "1", "2", "3"])

    def test_stall_silences_open_streams(self):
        stream = self.subscribe("t10")
        stream.event()
        self.relay.control("faults", {"kind": "stall"})
        stream.connection.sock.settimeout(1.0)
        with self.assertRaises(socket.timeout):
            while True:
                stream.line()
        fresh = self.subscribe("t10")
        self.assertEqual(fresh.event()["event"], "open")

    def test_raw_garbage_and_oversized_lines(self):
        stream = self.subscribe("t11")
        stream.event()
        self.assertEqual(self.relay.control("send", {"topic": "t11", "text": "garbage\n"})["subscribers"], 1)
        self.relay.control("send", {"topic": "t11", "text": "", "pad": 70000})
        self.relay.control("send", {"topic": "t11", "text": "\n"})
        self.assertEqual(stream.line(), b"garbage")
        self.assertEqual(stream.line(), b"x" * 70000)

    def test_state_and_reset(self):
        stream = self.subscribe("t12")
        stream.event()
        self.relay.control("publish", {"topic": "t12", "message": "m"})
        state = self.relay.control("state")
        self.assertEqual((state["open_streams"], state["messages"], len(state["subscriptions"])), (1, 1, 1))
        self.relay.control("reset", {})
        state = self.relay.control("state")
        self.assertEqual((state["messages"], len(state["subscriptions"])), (0, 0))

    def test_waiting_for_streams_to_close(self):
        stream = self.subscribe("t13")
        stream.event()
        self.assertEqual(self.relay.control("streams/wait?open=1&timeout=5")["open_streams"], 1)
        stream.close()
        reply = self.relay.control("streams/wait?open=0&timeout=5")
        self.assertEqual((reply["open_streams"], reply["timed_out"]), (0, False))

    def test_bad_topics_are_not_found(self):
        status, _ = self.relay.call("GET", "/bad.topic/json")
        self.assertEqual(status, 404)


if __name__ == "__main__":
    unittest.main()
