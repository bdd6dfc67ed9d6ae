#!/usr/bin/env python3
"""The stand-in's SSH front: what a real sshd runs for every connection (its
ForceCommand), as gitbay's own SSH front would. It hands the command string
OpenSSH received ($SSH_ORIGINAL_COMMAND) to the gitbay stand-in, with the account
and the scope of the key that connected, prints the answer and exits with the
command's exit code.

Which account and scope a key has comes from its line in authorized_keys:
environment="GITBAY_USER=cmc",environment="GITBAY_KEY_SCOPE=full",
environment="GITBAY_STANDIN=http://127.0.0.1:PORT" (sshd_standin.py says more).
"""

import http.client
import json
import os
import select
import sys
import urllib.parse


def main():
    standin = os.environ.get("GITBAY_STANDIN")
    username = os.environ.get("GITBAY_USER")
    if not standin or not username:
        sys.stderr.write("this key is not set up for the stand-in (no GITBAY_STANDIN or GITBAY_USER)\n")
        return 4
    command = os.environ.get("SSH_ORIGINAL_COMMAND")
    if command is None:
        sys.stderr.write(f"Hi {username}! gitbay does not offer interactive shells.\n")
        return 2
    # http.client rather than urllib.request, which takes longer to import than this takes to run.
    address = urllib.parse.urlsplit(standin)
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=60)
    connection.request("POST", "/_standin/ssh", headers={"Content-Type": "application/json"}, body=json.dumps(
        {"username": username, "key_scope": os.environ.get("GITBAY_KEY_SCOPE", "full"), "command": command}))
    answer = json.load(connection.getresponse())
    if answer["stall"]:
        # No answer at all until the client gives up: when it goes, sshd closes the other end
        # of our stdout, which poll reports as an error (or a hang-up) on it.
        watch = select.poll()
        watch.register(sys.stdout.fileno(), 0)
        watch.poll()
        return 1
    sys.stdout.write(answer["stdout"])
    sys.stderr.write(answer["stderr"])
    return answer["exit_code"]


if __name__ == "__main__":
    sys.exit(main())
