"""Tests of gitbay over SSH in the stand-in: a real sshd (sshd_standin.py) whose sessions are
the SSH front, reached with the real ssh client. Run from the package root:

    python3 -m unittest discover -s Tests/Standin -v
"""

import json
import os
import shlex
import subprocess
import sys
import tempfile
import unittest

from test_gitbay_standin import Standin

HERE = os.path.dirname(os.path.abspath(__file__))
SSHD = os.path.join(HERE, "sshd_standin.py")


class SSHServer:
    """sshd_standin.py as a subprocess, with keys and a client that reaches it."""

    def __init__(self):
        self.process = subprocess.Popen([sys.executable, SSHD], stdin=subprocess.DEVNULL,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        line = self.process.stdout.readline().decode()
        if not line:
            raise RuntimeError("sshd did not start: " + self.process.stderr.read().decode())
        ready = json.loads(line)
        self.port, self.user, self.host_key = ready["port"], ready["user"], ready["host_key"]
        self.authorized_keys = ready["authorized_keys"]
        self.client_dir = tempfile.TemporaryDirectory()
        self.known_hosts = os.path.join(self.client_dir.name, "known_hosts")
        with open(self.known_hosts, "w") as out:
            out.write(f"[127.0.0.1]:{self.port} {self.host_key}\n")

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=10)
        self.process.stdout.close()
        self.process.stderr.close()
        self.client_dir.cleanup()

    def key(self, name):
        path = os.path.join(self.client_dir.name, name)
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", path], check=True)
        return path

    def authorize(self, key, username, scope, standin):
        with open(key + ".pub") as public:
            line = (f'environment="GITBAY_USER={username}",environment="GITBAY_KEY_SCOPE={scope}",'
                    f'environment="GITBAY_STANDIN={standin.url}",restrict {public.read().strip()}\n')
        with open(self.authorized_keys, "a") as out:
            out.write(line)

    def ssh(self, key, command, known_hosts=None, timeout=30):
        """Runs the remote command string; returns (exit status, stdout, stderr)."""
        result = subprocess.run(
            ["ssh", "-F", "none", "-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes", "-i", key,
             "-o", f"UserKnownHostsFile={known_hosts or self.known_hosts}",
             "-o", "GlobalKnownHostsFile=/dev/null", "-p", str(self.port),
             f"{self.user}@127.0.0.1", "--", command],
            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout)
        return result.returncode, result.stdout, result.stderr


class SSHFrontTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.sshd = SSHServer()
        cls.full_key = cls.sshd.key("full")
        cls.read_key = cls.sshd.key("read")
        cls.stranger_key = cls.sshd.key("stranger")

    @classmethod
    def tearDownClass(cls):
        cls.sshd.stop()

    def setUp(self):
        self.standin = Standin()
        self.addCleanup(self.standin.stop)
        self.standin.control("users", {"username": "cmc"})
        # Each test its own stand-in: the keys go to it afresh (the newest line of a key wins
        # nothing in sshd, which takes the first, so the file is rewritten).
        open(self.sshd.authorized_keys, "w").close()
        self.sshd.authorize(self.full_key, "cmc", "full", self.standin)
        self.sshd.authorize(self.read_key, "cmc", "read", self.standin)

    def json_ssh(self, command, key=None):
        status, stdout, stderr = self.sshd.ssh(key or self.full_key, command)
        return status, json.loads(stdout), stderr

    def test_token_create_mints_a_token_the_api_takes_and_revoke_ends_it(self):
        status, envelope, _ = self.json_ssh("--json token create --name laptop --scope full")
        self.assertEqual(status, 0)
        self.assertEqual(set(envelope), {"protocol_version", "data"})
        data = envelope["data"]
        self.assertEqual((data["name"], data["scope"]), ("laptop", "full"))
        self.assertRegex(data["token"], r"^gb_[0-9a-f]{40}$")
        self.assertEqual(self.standin.read(["whoami"], token=data["token"]).status, 200)

        status, envelope, _ = self.json_ssh("--json token revoke laptop")
        self.assertEqual((status, envelope["data"]["revoked"]), (0, "laptop"))
        reply = self.standin.read(["whoami"], token=data["token"])
        self.assertEqual(reply.status, 401)
        self.assertEqual(reply.json["error"], "invalid or expired token")

    def test_the_command_is_split_by_posix_rules_without_expansion(self):
        name = """it's "mine" $HOME *"""
        status, envelope, _ = self.json_ssh(shlex.join(["token", "create", "--json", "--name", name]))
        self.assertEqual(status, 0)
        self.assertEqual(envelope["data"]["name"], name)
        status, envelope, _ = self.json_ssh("--json token list")
        self.assertEqual([row["name"] for row in envelope["data"]], [name])
        self.assertNotIn("token", envelope["data"][0])
        status, envelope, _ = self.json_ssh("--json token revoke " + shlex.quote(name))
        self.assertEqual(envelope["data"]["revoked"], name)

    def test_exit_codes_and_error_envelopes(self):
        status, envelope, _ = self.json_ssh("--json token revoke nothing")
        self.assertEqual((status, envelope), (3, {"protocol_version": 1, "error": 'no token named "nothing"'}))
        status, envelope, _ = self.json_ssh("--json token create")
        self.assertEqual((status, envelope["error"]), (2, "token create: --name is required"))
        self.json_ssh("--json token create --name twice")
        status, envelope, _ = self.json_ssh("--json token create --name twice")
        self.assertEqual(status, 2)
        self.assertIn('a token named "twice" already exists', envelope["error"])
        status, envelope, _ = self.json_ssh("--json token create --name 'open")
        self.assertEqual(status, 2)
        self.assertIn("cannot read the command", envelope["error"])
        status, envelope, _ = self.json_ssh("--json frob")
        self.assertEqual((status, envelope["error"]), (3, "unknown command frob"))

    def test_a_read_scoped_key_may_not_run_control_commands(self):
        status, envelope, _ = self.json_ssh("--json token create --name x", key=self.read_key)
        self.assertEqual((status, envelope), (4, {"protocol_version": 1,
                                                 "error": "this key's scope (read) does not allow control commands"}))
        status, envelope, _ = self.json_ssh("--json whoami", key=self.read_key)
        self.assertEqual(status, 0)
        self.assertEqual(envelope["data"], {"username": "cmc", "admin": False, "key_scope": "read"})

    def test_without_json_the_answer_is_for_people(self):
        status, stdout, stderr = self.sshd.ssh(self.full_key, "token revoke nothing")
        self.assertEqual((status, stdout), (3, ""))
        self.assertEqual(stderr, 'error: no token named "nothing"\n')

    def test_a_ttl_makes_the_token_expire(self):
        _, envelope, _ = self.json_ssh("--json token create --name short --ttl 1h")
        token = envelope["data"]["token"]
        self.assertIn("expires_at", self.json_ssh("--json token list")[1]["data"][0])
        self.standin.control("clock", {"advance": 3601})
        self.assertEqual(self.standin.read(["whoami"], token=token).status, 401)

    def test_without_scope_a_read_token_and_the_list_says_the_key_made_it(self):
        _, envelope, _ = self.json_ssh("--json token create --name plain")
        self.assertEqual(envelope["data"]["scope"], "read")
        _, envelope, _ = self.json_ssh("--json token list")
        self.assertEqual([(row["name"], row["scope"], row["created_by"]) for row in envelope["data"]],
                         [("plain", "read", "ssh key")])
        status, envelope, _ = self.json_ssh("--json token revoke plain")
        self.assertEqual((status, envelope["data"]), (0, {"revoked": "plain", "created": {"tokens": 0, "keys": 0},
                                                          "created_revoked": False}))

    def test_ssh_itself_fails_with_255(self):
        status, _, stderr = self.sshd.ssh(self.stranger_key, "--json whoami")
        self.assertEqual(status, 255)
        self.assertIn("Permission denied (publickey)", stderr)
        empty = os.path.join(self.sshd.client_dir.name, "no_known_hosts")
        open(empty, "w").close()
        status, _, stderr = self.sshd.ssh(self.full_key, "--json whoami", known_hosts=empty)
        self.assertEqual(status, 255)
        self.assertIn("Host key verification failed", stderr)

    def test_faults_replace_the_answer_and_the_log_says_what_was_asked(self):
        self.standin.control("ssh/faults", {"match": {"argv_prefix": ["token", "create"]}, "stdout": "not json\n"})
        status, stdout, _ = self.sshd.ssh(self.full_key, "--json token create --name a")
        self.assertEqual((status, stdout), (0, "not json\n"))
        # The command ran all the same: the token exists, and is the client's to revoke.
        self.assertEqual([t["name"] for t in self.standin.control("state")["tokens"]], ["a"])

        self.standin.control("ssh/faults", {"token": "gb_../../etc"})
        status, envelope, _ = self.json_ssh("--json token create --name b")
        self.assertEqual(envelope["data"], {"name": "b", "scope": "read", "token": "gb_../../etc"})

        self.standin.control("ssh/faults", {"stdout_bytes": 100_000})
        status, stdout, _ = self.sshd.ssh(self.full_key, "--json whoami")
        self.assertEqual(len(stdout), 100_000)
        self.assertEqual(json.loads(stdout)["data"]["username"], "cmc")

        log = self.standin.control("ssh/commands")["commands"]
        self.assertEqual([entry["argv"] for entry in log],
                         [["token", "create", "--name", "a"], ["token", "create", "--name", "b"], ["whoami"]])
        self.assertEqual([entry["fault"] for entry in log], ["stdout", "token", "stdout_bytes"])

    def test_a_stall_answers_nothing_until_the_client_goes(self):
        self.standin.control("ssh/faults", {"stall": True})
        # A real wait: the client giving up is what ends a stall.
        with self.assertRaises(subprocess.TimeoutExpired):
            self.sshd.ssh(self.full_key, "--json whoami", timeout=1.5)
        # The next command is answered: the stall was used up.
        self.assertEqual(self.json_ssh("--json whoami")[0], 0)


if __name__ == "__main__":
    unittest.main()
