"""gitbay over SSH, as the contract's "Over SSH" section has it: the one command
string OpenSSH hands over, split by POSIX shell rules without expansion, `--json`
envelopes, exit codes and key scopes.

The stand-in's SSH front (ssh_front.py, run by a real sshd as its ForceCommand)
posts each command here through the control API, naming the account and the
scope of the key that connected, so that tokens minted over SSH live in the same
table the HTTP API checks.
"""

import json
import shlex
import threading

from standin_commands import (EXIT_DENIED, EXIT_NOT_FOUND, EXIT_OK, EXIT_USAGE, Invocation,
                              Outcome, UnknownCommand, UsageError, lookup, run)
from standin_model import ModelError
from standin_server import compact_json

READ_KEY_DENIED = "this key's scope (read) does not allow control commands"
FAULT_ACTIONS = ("stdout", "stdout_bytes", "token", "stall")
MATCH_KEYS = ("argv_prefix", "username")


def split(command):
    """The remote command string as the server splits it; raises UsageError."""
    try:
        return shlex.split(command, posix=True)
    except ValueError as error:
        raise UsageError(f"cannot read the command: {error}") from None


def run_command(store, username, key_scope, argv):
    """Runs argv (without --json) for the account; returns an Outcome."""
    if not argv:
        return Outcome(EXIT_USAGE, error="usage: ssh git@HOST <command>; try: help")
    account = store.accounts.get(username)
    if account is None:
        return Outcome(EXIT_DENIED, error="this key belongs to no account")
    try:
        command, args = lookup(argv)
    except UnknownCommand as error:
        return Outcome(EXIT_NOT_FOUND, error=f"unknown command {error}")
    if (command.changes_state or command.credentials) and key_scope != "full":
        return Outcome(EXIT_DENIED, error=READ_KEY_DENIED)
    outcome = run(command, Invocation(store, account, args, None, "ssh key"))
    if command.path == ("whoami",) and outcome.exit_code == EXIT_OK:
        # Over SSH key_scope is the key's own, not always "full" as over the API.
        outcome.data = dict(outcome.data, key_scope=key_scope)
    return outcome


def render(outcome, as_json):
    """(stdout, stderr) of the answer: an envelope with --json, text for people without."""
    if as_json:
        envelope = {"protocol_version": 1}
        if outcome.exit_code == EXIT_OK:
            envelope["data"] = outcome.data if outcome.output is None else outcome.output
        else:
            envelope["error"] = outcome.error
        return compact_json(envelope).decode("utf-8") + "\n", outcome.stderr or ""
    if outcome.exit_code != EXIT_OK:
        return "", f"error: {outcome.error}\n"
    if outcome.output is not None:
        return outcome.output, outcome.stderr or ""
    return json.dumps(outcome.data, indent=2, ensure_ascii=False) + "\n", outcome.stderr or ""


class SSHFaults:
    """Hostile answers a test arms for the SSH front, and the log of what it was asked."""

    def __init__(self):
        self._lock = threading.Lock()
        self._faults = []
        self._next_id = 1
        self._log = []

    def add(self, spec):
        if not isinstance(spec, dict):
            raise ModelError("a fault must be a JSON object")
        match = spec.get("match", {})
        if not isinstance(match, dict) or set(match) - set(MATCH_KEYS):
            raise ModelError("match takes " + ", ".join(MATCH_KEYS))
        prefix = match.get("argv_prefix", [])
        if not isinstance(prefix, list) or not all(isinstance(word, str) for word in prefix):
            raise ModelError("match.argv_prefix must be an array of strings")
        actions = [key for key in FAULT_ACTIONS if key in spec]
        if len(actions) != 1:
            raise ModelError("give exactly one of " + ", ".join(FAULT_ACTIONS))
        action = actions[0]
        value = spec[action]
        if action in ("stdout", "token") and not isinstance(value, str):
            raise ModelError(f"{action} must be a string")
        if action == "stdout_bytes" and (isinstance(value, bool) or not isinstance(value, int)
                                         or not 0 <= value <= 64 * 1024 * 1024):
            raise ModelError("stdout_bytes must be an integer 0..67108864")
        if action == "stall" and value is not True:
            raise ModelError("stall must be true")
        times = spec.get("times", 1)
        if isinstance(times, bool) or not isinstance(times, int) or times < 0:
            raise ModelError("times must be an integer >= 0")
        with self._lock:
            fault = dict(spec, id=self._next_id, match=match, action=action,
                         times_left=times if times else None)
            self._next_id += 1
            self._faults.append(fault)
            return fault["id"]

    def take(self, argv, username):
        with self._lock:
            for fault in self._faults:
                match = fault["match"]
                if argv[:len(match.get("argv_prefix", []))] != match.get("argv_prefix", []):
                    continue
                if "username" in match and match["username"] != username:
                    continue
                if fault["times_left"] is not None:
                    fault["times_left"] -= 1
                    if fault["times_left"] == 0:
                        self._faults.remove(fault)
                return dict(fault)
            return None

    def record(self, entry):
        with self._lock:
            self._log.append(entry)

    def log(self):
        with self._lock:
            return [dict(entry) for entry in self._log]

    def clear(self):
        with self._lock:
            self._faults.clear()

    def reset(self):
        with self._lock:
            self._faults.clear()
            self._log.clear()


def answer(server, username, key_scope, command):
    """What the front prints and exits with: {"exit_code", "stdout", "stderr", "stall"}."""
    store, faults = server.store, server.ssh_faults
    with store.lock:
        try:
            argv = split(command)
        except UsageError as error:
            argv, fault = None, None
            outcome, as_json = Outcome(EXIT_USAGE, error=str(error)), "--json" in command
        else:
            as_json = "--json" in argv
            argv = [word for word in argv if word != "--json"]
            fault = faults.take(argv, username)
            if fault is not None and fault["action"] == "stall":
                faults.record({"username": username, "key_scope": key_scope, "command": command,
                               "argv": argv, "exit_code": None, "fault": "stall"})
                return {"exit_code": 1, "stdout": "", "stderr": "", "stall": True}
            outcome = run_command(store, username, key_scope, argv)
        stdout, stderr = render(outcome, as_json)
        applied = None
        if argv is not None and fault is not None:
            applied = fault["action"]
            if applied == "stdout":
                stdout = fault["stdout"]
            elif applied == "stdout_bytes":
                stdout = stdout + " " * max(0, fault["stdout_bytes"] - len(stdout.encode("utf-8")))
            elif applied == "token" and isinstance(outcome.data, dict) and "token" in outcome.data:
                stdout, stderr = render(Outcome(outcome.exit_code, dict(outcome.data, token=fault["token"])),
                                        as_json)
        faults.record({"username": username, "key_scope": key_scope, "command": command,
                       "argv": argv, "exit_code": outcome.exit_code, "fault": applied})
        return {"exit_code": outcome.exit_code, "stdout": stdout, "stderr": stderr, "stall": False}
