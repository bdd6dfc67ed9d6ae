"""Faults a test arms through the control API, and the request log it reads back."""

import copy
import threading
import time

from standin_model import ModelError

ACTIONS = ("status", "delay", "stall", "drip", "close", "truncate", "body_bytes", "bad_gzip",
           "redirect")
MATCH_KEYS = ("path_prefix", "argv_prefix", "username", "method")
MAX_BODY_BYTES = 256 * 1024 * 1024


def _validate(spec):
    if not isinstance(spec, dict):
        raise ModelError("a fault must be a JSON object")
    match = spec.get("match", {})
    if not isinstance(match, dict) or set(match) - set(MATCH_KEYS):
        raise ModelError("match takes " + ", ".join(MATCH_KEYS))
    for key in ("path_prefix", "username", "method"):
        if key in match and not isinstance(match[key], str):
            raise ModelError(f"match.{key} must be a string")
    if "argv_prefix" in match and not (isinstance(match["argv_prefix"], list) and all(
            isinstance(word, str) for word in match["argv_prefix"])):
        raise ModelError("match.argv_prefix must be an array of strings")
    times = spec.get("times", 1)
    if isinstance(times, bool) or not isinstance(times, int) or times < 0:
        raise ModelError("times must be an integer >= 0")
    actions = [key for key in ACTIONS if key in spec]
    if len(actions) != 1:
        raise ModelError("give exactly one of " + ", ".join(ACTIONS))
    action = actions[0]
    value = spec[action]
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if action == "status" and not (isinstance(value, int) and not isinstance(value, bool)
                                   and 100 <= value <= 599):
        raise ModelError("status must be an HTTP status code")
    if action in ("delay", "drip") and not (number and value > 0):
        raise ModelError(f"{action} must be a number > 0")
    if action in ("truncate", "body_bytes") and not (
            isinstance(value, int) and not isinstance(value, bool)
            and 0 <= value <= MAX_BODY_BYTES):
        raise ModelError(f"{action} must be an integer 0..{MAX_BODY_BYTES}")
    if action in ("stall", "close", "bad_gzip") and value is not True:
        raise ModelError(f"{action} must be true")
    if action == "redirect" and not isinstance(value, str):
        raise ModelError("redirect must be a URL string")
    if not isinstance(spec.get("body", ""), str):
        raise ModelError("body must be a string")
    headers = spec.get("headers", {})
    if not isinstance(headers, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in headers.items()):
        raise ModelError("headers must be an object of strings")
    return match, times, action


class FaultBook:
    def __init__(self):
        self._lock = threading.Lock()
        self._faults = []
        self._next_id = 1
        self._stalls = set()  # events of requests stalled right now

    def add(self, spec):
        match, times, action = _validate(spec)
        with self._lock:
            fault = dict(spec, id=self._next_id, match=match, action=action,
                         times_left=times if times else None)
            self._next_id += 1
            self._faults.append(fault)
            return fault["id"]

    def listing(self):
        with self._lock:
            return copy.deepcopy(self._faults)

    def take(self, method, path, argv, username):
        """The oldest fault matching this request, used up by one; or None."""
        with self._lock:
            for fault in self._faults:
                match = fault["match"]
                if "method" in match and match["method"].upper() != method.upper():
                    continue
                if "path_prefix" in match and not path.startswith(match["path_prefix"]):
                    continue
                prefix = match.get("argv_prefix")
                if prefix is not None and (argv is None or argv[:len(prefix)] != prefix):
                    continue
                if "username" in match and match["username"] != username:
                    continue
                if fault["times_left"] is not None:
                    fault["times_left"] -= 1
                    if fault["times_left"] == 0:
                        self._faults.remove(fault)
                return copy.deepcopy(fault)
            return None

    def stall_event(self):
        event = threading.Event()
        with self._lock:
            self._stalls.add(event)
        return event

    def end_stall(self, event):
        with self._lock:
            self._stalls.discard(event)

    def clear(self):
        with self._lock:
            self._faults.clear()
            stalls, self._stalls = self._stalls, set()
        for event in stalls:
            event.set()


class RequestLog:
    def __init__(self):
        self._changed = threading.Condition()
        self._entries = []
        self._next_seq = 1

    def add(self, entry):
        with self._changed:
            entry = {"seq": self._next_seq, **entry}
            self._next_seq += 1
            self._entries.append(entry)
            self._changed.notify_all()
            return entry

    def record_status(self, entry, status):
        with self._changed:
            entry["status"] = status

    def listing(self, since=0):
        with self._changed:
            return copy.deepcopy([e for e in self._entries if e["seq"] > since])

    def wait(self, count, timeout):
        """Waits until the log holds `count` entries; returns (entries, timed_out)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while len(self._entries) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    return copy.deepcopy(self._entries), True
                self._changed.wait(left)
            return copy.deepcopy(self._entries), False

    def clear(self):
        with self._changed:
            self._entries.clear()
            self._next_seq = 1
