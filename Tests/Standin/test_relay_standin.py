"""Tests of the relay stand-in: the ntfy stream of one topic or several, `since=`, keepalives,
publishing, the token, every scripted fault and the demo announcement. Run from the package root:

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
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
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

    def publish(self, topic, message, at=None):
        """Publishes; returns the message's id. `at` sets its time (Unix seconds)."""
        body = {"topic": topic, "message": message} | ({} if at is None else {"time": at})
        return self.control("publish", body)["id"]

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

    def messages(self, count):
        """The next `count` events, each as (topic, message); each must be a message."""
        events = [self.event() for _ in range(count)]
        assert all(event["event"] == "message" for event in events), events
        return [(event["topic"], event["message"]) for event in events]

    def assert_silent(self, seconds):
        """Nothing at all arrives for `seconds` (keepalives included)."""
        self.connection.sock.settimeout(seconds)
        try:
            data = self.response.read1(65536)
        except socket.timeout:
            return
        raise AssertionError(f"the stream sent {data!r}")

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
        self.assertEqual(reply["subscriptions"],
                         [{"topic": "t7", "topics": ["t7"], "since": "abc", "authorization": "Bearer x"}])
        self.assertFalse(reply["timed_out"])
        self.assertTrue(self.relay.control("subscriptions/wait?count=2&timeout=0.2")["timed_out"])
        self.subscribe("t7,t8,t7").event()
        self.assertEqual(self.relay.control("subscriptions/wait?count=2&timeout=5")["subscriptions"][1],
                         {"topic": "t7,t8,t7", "topics": ["t7", "t8", "t7"], "since": None, "authorization": None})

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

    def test_silent_head_answers_nothing_then_the_next_subscription_normally(self):
        self.relay.control("faults", {"kind": "silent_head", "count": 1})
        silent = http.client.HTTPConnection("127.0.0.1", self.relay.port, timeout=1.0)
        self.addCleanup(silent.close)
        silent.request("GET", "/t13/json")
        with self.assertRaises(socket.timeout):
            silent.getresponse()
        waited = self.relay.control("subscriptions/wait?count=1&timeout=5")
        self.assertEqual([entry["topic"] for entry in waited["subscriptions"]], ["t13"])
        fresh = self.subscribe("t13")
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

    # MARK: - Several topics on one stream

    def test_one_stream_carries_every_listed_topic_and_no_other(self):
        stream = self.subscribe("ta,tb")
        opened = stream.event()
        self.assertEqual((opened["event"], opened["topic"]), ("open", "ta,tb"))
        for topic in ["ta", "tc", "tb"]:
            self.relay.publish(topic, "to " + topic)
        self.assertEqual(stream.messages(2), [("ta", "to ta"), ("tb", "to tb")])
        keepalive = stream.event()  # tc's message would have come before it
        self.assertEqual((keepalive["event"], keepalive["topic"]), ("keepalive", "ta,tb"))

    def test_the_open_and_keepalive_topic_is_the_list_as_requested(self):
        stream = self.subscribe("tb,ta,tb")
        self.assertEqual(stream.event()["topic"], "tb,ta,tb")
        self.assertEqual(stream.event()["topic"], "tb,ta,tb")

    def test_an_encoded_comma_separates_topics(self):
        stream = self.subscribe("ta%2Ctb")
        self.assertEqual(stream.event()["topic"], "ta,tb")
        self.relay.publish("tb", "b")
        self.assertEqual(stream.messages(1), [("tb", "b")])

    def test_since_an_id_resumes_every_listed_topic_after_it_whichever_topic_it_was_on(self):
        ids = {}
        for second, (topic, message) in enumerate([("ta", "a1"), ("tb", "b1"), ("ta", "a2"), ("tc", "c1"),
                                                    ("tb", "b2")]):
            ids[message] = self.relay.publish(topic, message, at=1_700_000_000 + second)
        for since, expected in [("a1", [("tb", "b1"), ("ta", "a2"), ("tb", "b2")]),
                                ("b1", [("ta", "a2"), ("tb", "b2")]),
                                ("c1", [("tb", "b2")])]:  # c1 is on a topic not listed
            stream = self.subscribe("ta,tb", since=ids[since])
            stream.event()
            self.assertEqual(stream.messages(len(expected)), expected, since)
            self.assertEqual(stream.event()["event"], "keepalive", since)  # and nothing more

    def test_an_unknown_id_over_several_topics_replays_all_of_them(self):
        self.relay.publish("ta", "a1", at=100)
        self.relay.publish("tc", "c1", at=101)
        self.relay.publish("tb", "b1", at=102)
        stream = self.subscribe("ta,tb", since="unknownid123")
        stream.event()
        self.assertEqual(stream.messages(2), [("ta", "a1"), ("tb", "b1")])

    def test_since_a_time_or_all_over_several_topics(self):
        self.relay.publish("ta", "a100", at=100)
        self.relay.publish("tb", "b200", at=200)
        self.relay.publish("tc", "c250", at=250)
        self.relay.publish("ta", "a300", at=300)
        for since, expected in [("200", [("tb", "b200"), ("ta", "a300")]),
                                ("all", [("ta", "a100"), ("tb", "b200"), ("ta", "a300")])]:
            stream = self.subscribe("ta,tb", since=since)
            stream.event()
            self.assertEqual(stream.messages(len(expected)), expected, since)
            self.assertEqual(stream.event()["event"], "keepalive", since)

    def test_the_backlog_is_ordered_by_time_then_by_the_listed_topics(self):
        # As ntfy's sendOldMessages: each topic's messages in time order, the topics joined
        # in the order listed, then sorted by the time (whole seconds) alone, stably.
        self.relay.publish("tb", "b1", at=500)
        self.relay.publish("ta", "a1", at=500)
        self.relay.publish("ta", "a2", at=501)
        self.relay.publish("tb", "b2", at=501)
        self.relay.publish("tb", "b0", at=499)  # published last, yet the oldest
        for topics, expected in [("ta,tb", ["b0", "a1", "b1", "a2", "b2"]),
                                 ("tb,ta", ["b0", "b1", "a1", "b2", "a2"])]:
            stream = self.subscribe(topics, since="all")
            stream.event()
            self.assertEqual([message for _, message in stream.messages(5)], expected, topics)

    def test_a_topic_listed_twice_is_subscribed_twice(self):
        self.relay.publish("td", "old")
        stream = self.subscribe("td,td", since="all")
        stream.event()
        self.assertEqual(stream.messages(2), [("td", "old"), ("td", "old")])
        self.relay.publish("td", "new")
        self.assertEqual(stream.messages(2), [("td", "new"), ("td", "new")])
        self.assertEqual(stream.event()["event"], "keepalive")

    def test_bad_topic_lists_are_not_found_and_not_logged(self):
        for topics in ["ta,,tb", "ta,", ",ta", "ta,b.c", "ta," + "x" * 65, "ta,t%20b", "ta;tb"]:
            status, reply = self.relay.call("GET", f"/{topics}/json")
            self.assertEqual((status, reply), (404, {"code": 40401, "http": 404, "error": "page not found"}), topics)
        self.assertEqual(self.relay.control("state")["subscriptions"], [])

    def test_many_topics_on_one_stream(self):
        # ntfy sets no limit of its own on the list (only its request size limits bound it).
        topics = [f"{n:064x}" for n in range(200)]
        stream = self.subscribe(",".join(topics))
        self.assertEqual(stream.event()["topic"], ",".join(topics))
        self.relay.publish(topics[-1], "last")
        self.assertEqual(stream.messages(1), [(topics[-1], "last")])

    def test_disconnect_hits_the_next_stream_that_includes_its_topic(self):
        self.relay.control("faults", {"kind": "disconnect", "topic": "tb", "after_messages": 1})
        self.relay.control("faults", {"kind": "disconnect", "topic": "ta", "after_messages": 0})
        spared = self.subscribe("tc")
        spared.event()
        # Both faults match; the older (tb's) is taken, and counts message lines of every topic.
        first = self.subscribe("ta,tb")
        first.event()
        self.relay.publish("ta", "0", at=10)
        self.relay.publish("tb", "1", at=11)
        self.assertEqual(first.messages(1), [("ta", "0")])
        with self.assertRaises((EOFError, http.client.IncompleteRead)):
            first.line()
        # ta's is still armed, for the next stream that includes ta.
        second = self.subscribe("tc,ta")
        second.event()
        self.relay.publish("ta", "2", at=12)
        with self.assertRaises((EOFError, http.client.IncompleteRead)):
            second.line()
        self.relay.publish("tc", "3")
        self.assertEqual(spared.messages(1), [("tc", "3")])
        # Both are spent.
        again = self.subscribe("ta,tb", since="all")
        again.event()
        self.assertEqual([message for _, message in again.messages(3)], ["0", "1", "2"])

    def test_stall_of_a_topic_silences_only_the_streams_that_include_it(self):
        only_a, a_and_b, only_c = self.subscribe("ta"), self.subscribe("tb,ta"), self.subscribe("tc")
        for stream in [only_a, a_and_b, only_c]:
            stream.event()
        self.relay.control("faults", {"kind": "stall", "topic": "ta"})
        self.relay.publish("tb", "b")
        self.relay.publish("tc", "c")
        only_a.assert_silent(1.0)
        a_and_b.assert_silent(0.1)
        self.assertEqual(only_c.messages(1), [("tc", "c")])
        self.assertEqual(only_c.event()["event"], "keepalive")

    def test_drop_of_a_topic_ends_only_the_streams_that_include_it(self):
        only_a, a_and_b, only_c = self.subscribe("ta"), self.subscribe("tb,ta"), self.subscribe("tc")
        for stream in [only_a, a_and_b, only_c]:
            stream.event()
        self.relay.control("faults", {"kind": "drop", "topic": "ta"})
        for stream in [only_a, a_and_b]:
            with self.assertRaises((EOFError, http.client.IncompleteRead)):
                stream.line()
        self.relay.publish("tc", "c")
        self.assertEqual(only_c.messages(1), [("tc", "c")])
        self.assertEqual(self.subscribe("ta").event()["event"], "open")

    def test_raw_bytes_go_once_to_every_stream_that_includes_the_topic(self):
        only_a, b_and_a, only_b = self.subscribe("ta"), self.subscribe("tb,ta,ta"), self.subscribe("tb")
        for stream in [only_a, b_and_a, only_b]:
            stream.event()
        self.assertEqual(self.relay.control("send", {"topic": "ta", "text": "raw\n"})["subscribers"], 2)
        self.relay.publish("ta", "after")
        for stream in [only_a, b_and_a]:
            self.assertEqual(stream.line(), b"raw")
            self.assertEqual(stream.event()["message"], "after")
        self.assertEqual(only_b.event()["event"], "keepalive")

    def test_control_requests_name_one_topic(self):
        for route, body in [("publish", {"topic": "ta,tb", "message": "m"}),
                            ("publish", {"topic": "ta"}),
                            ("publish", {"topic": "ta", "message": "m", "time": "soon"}),
                            ("send", {"topic": "ta,tb", "text": "x"}),
                            ("faults", {"kind": "disconnect", "topic": "ta,tb", "after_messages": 1}),
                            ("faults", {"kind": "stall", "topic": ""}),
                            ("faults", {"kind": "disconnect", "topic": "ta"})]:
            status, reply = self.relay.call("POST", "/_relay/" + route, body)
            self.assertEqual(status, 400, (route, body, reply))
            self.assertIn("error", reply)
        self.assertEqual(self.relay.control("state")["messages"], 0)
        status, _ = self.relay.call("POST", "/ta,tb", b"m")  # ntfy publishes to one topic only
        self.assertEqual(status, 404)

    # MARK: - make demo

    def test_the_demo_announcement_wakes_the_demo_account_on_its_own_topic(self):
        relay = Relay("--demo", "--demo-instance", "http://127.0.0.1:8417")
        self.addCleanup(relay.stop)
        lines = []
        while not lines or not lines[-1].startswith("    curl "):
            lines.append(relay.process.stderr.readline().rstrip("\n"))
        self.assertIn(f"    relay-url = {relay.url}", lines)
        self.assertFalse(any("relay-topic" in line for line in lines), lines)
        # Run as printed, with a gbnotifyctl that lists the demo account beside another.
        listing = json.dumps([{"user": "cmc", "topic": "not-this"}, {"user": "demo", "topic": "demo-topic-1"}])
        stream = relay.subscribe("other,demo-topic-1")
        self.addCleanup(stream.close)
        stream.event()
        result = subprocess.run(["bash", "-c", f"gbnotifyctl() {{ echo '{listing}'; }}\n{lines[-1]}"],
                                capture_output=True, text=True, timeout=30)
        self.assertEqual(result.returncode, 0, result.stderr)
        [(topic, message)] = stream.messages(1)
        self.assertEqual(topic, "demo-topic-1")
        self.assertEqual(json.loads(message), {"instance": "http://127.0.0.1:8417", "user": "demo"})


if __name__ == "__main__":
    unittest.main()
