#!/usr/bin/python3
"""A tiny IMAP server over TLS: the mail server Mailnag watches in `make bench`, so that
gbnotifyd's idle costs can be set beside a real desktop notifier's in the same run.

    imap_standin.py --cert FILE --key FILE --user NAME --password WORD [--messages N]

It serves one mailbox, INBOX, holding N messages (default 3), all seen: an idle account, so
Mailnag's first check finds nothing to show and then waits in IMAP IDLE, as it does by
default. It speaks the part of IMAP4rev1 (RFC 3501) and IDLE (RFC 2177) that Mailnag's IMAP
backend (imaplib2) uses: CAPABILITY, LOGIN, SELECT/EXAMINE, UID SEARCH, UID FETCH, IDLE and
DONE, NOOP, CLOSE, LOGOUT, and the SEARCH by sequence number that gnubiff (the other peer) sends;
anything else is answered BAD. Like Mailnag's own account dialog,
it offers IMAPS (TLS from the first byte; Mailnag's IMAP4_SSL connects without checking the
certificate).

Prints one JSON line, {"host": ..., "port": ...}, once it listens, then one line on stderr per
command received: its CLOCK_MONOTONIC time and its name, so that a benchmark can count what
the client sent in a window. Stops on SIGTERM, or once its parent goes away.
"""

import argparse
import json
import os
import signal
import socketserver
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Tests", "Standin"))

from standin_server import ThreadedServer, stop_when_orphaned, tls_context  # noqa: E402

CAPABILITIES = "IMAP4rev1 IDLE AUTH=PLAIN"


def message(uid):
    return (f"From: eve@example.org\r\nTo: cmc@example.org\r\nSubject: message {uid}\r\n"
            f"Date: Mon, 30 Nov 2026 10:00:00 +0000\r\nMessage-ID: <{uid}@example.org>\r\n\r\n").encode()


class IMAPHandler(socketserver.StreamRequestHandler):
    def setup(self):
        self.request.do_handshake()
        super().setup()

    def send(self, line):
        self.wfile.write(line.encode() + b"\r\n")
        self.wfile.flush()

    def handle(self):
        server = self.server
        self.send(f"* OK [CAPABILITY {CAPABILITIES}] gbnotify bench IMAP ready")
        authenticated = False
        while True:
            line = self.rfile.readline(65536)
            if not line:
                return
            tag, _, rest = line.decode("utf-8", "replace").rstrip("\r\n").partition(" ")
            command, _, arguments = rest.partition(" ")
            command = command.upper()
            print(f"{time.monotonic():.6f} {command}", file=sys.stderr, flush=True)
            if command == "CAPABILITY":
                self.send(f"* CAPABILITY {CAPABILITIES}")
                self.send(f"{tag} OK CAPABILITY completed")
            elif command == "LOGIN":
                words = [word.strip('"') for word in arguments.split(" ")]
                if words == [server.user, server.password]:
                    authenticated = True
                    self.send(f"{tag} OK LOGIN completed")
                else:
                    self.send(f"{tag} NO [AUTHENTICATIONFAILED] invalid credentials")
            elif command == "NOOP":
                self.send(f"{tag} OK NOOP completed")
            elif command == "LOGOUT":
                self.send("* BYE logging out")
                self.send(f"{tag} OK LOGOUT completed")
                return
            elif not authenticated:
                self.send(f"{tag} NO log in first")
            elif command in ("SELECT", "EXAMINE"):
                self.send(f"* {server.messages} EXISTS")
                self.send("* 0 RECENT")
                self.send("* FLAGS (\\Seen \\Answered \\Flagged \\Deleted \\Draft)")
                self.send("* OK [UIDVALIDITY 1] UIDs valid")
                self.send(f"* OK [UIDNEXT {server.messages + 1}] predicted next UID")
                mode = "READ-ONLY" if command == "EXAMINE" else "READ-WRITE"
                self.send(f"{tag} OK [{mode}] {command} completed")
            elif command == "SEARCH" or (command == "UID" and arguments.upper().startswith("SEARCH")):
                # Every message is seen: UNSEEN (or NOT SEEN, the same key) finds none, ALL finds
                # them all. A message's UID is its sequence number, so both answer alike.
                unseen = "UNSEEN" in arguments.upper() or "NOT SEEN" in arguments.upper()
                found = "" if unseen else " " + " ".join(
                    str(uid) for uid in range(1, server.messages + 1))
                self.send(f"* SEARCH{found}")
                self.send(f"{tag} OK SEARCH completed")
            elif command == "UID" and arguments.upper().startswith("FETCH"):
                uid = int(arguments.split(" ")[1])
                header = message(uid)
                self.wfile.write(f"* {uid} FETCH (UID {uid} BODY[HEADER] {{{len(header)}}}\r\n".encode()
                                 + header + b")\r\n")
                self.send(f"{tag} OK FETCH completed")
            elif command == "IDLE":
                self.send("+ idling")
                # DONE ends it (RFC 2177); until then the connection is quiet.
                done = self.rfile.readline(1024)
                if not done:
                    return
                print(f"{time.monotonic():.6f} DONE", file=sys.stderr, flush=True)
                self.send(f"{tag} OK IDLE terminated")
            elif command == "CLOSE":
                self.send(f"{tag} OK CLOSE completed")
            else:
                self.send(f"{tag} BAD unknown command")


class IMAPServer(ThreadedServer):
    """The stand-ins' threaded TLS server (one thread per connection, the handshake in it)."""

    def __init__(self, host, port, context, user, password, messages):
        self.user = user
        self.password = password
        self.messages = messages
        super().__init__(host, port, IMAPHandler, context)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--user", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--messages", type=int, default=3)
    arguments = parser.parse_args()

    server = IMAPServer(arguments.host, arguments.port, tls_context(arguments.cert, arguments.key),
                        arguments.user, arguments.password, arguments.messages)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    threading.Thread(target=stop_when_orphaned, args=(stop,), daemon=True).start()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(json.dumps({"host": arguments.host, "port": server.server_address[1]}), flush=True)
    stop.wait()
    server.shutdown()
    server.server_close()


if __name__ == "__main__":
    main()
