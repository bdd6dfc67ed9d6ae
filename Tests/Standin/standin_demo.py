"""The stand-in's `--demo`: a user `demo` with an inbox of issues, merge requests and builds
across a few repositories, each item readable with `issue|mr|build show`, and a new notice
(with its item) every few seconds; with `--demo-relay`, every other one is also published to
that relay on each of the user's devices' topics, as a gitbay with push on would have it sent."""

import itertools
import json
import os
import sys
import urllib.error
import urllib.request

from standin_model import KIND_SEGMENTS, iso_timestamp

DEMO_USER = "demo"
HOUR = 3600
DAY = 24 * HOUR
# (repo, kind, actor, summary, number, seconds ago) for the seeded inbox, oldest first, and the
# notices that follow.
DEMO_NOTICES = [
    ("krz/gitbay", "issue", "cmc", "opened issue #12", 12, 2 * DAY),
    ("krz/gitbay", "mr", "alba", "opened merge request #31", 31, 5 * HOUR),
    ("krz/gitbay", "build", "ci", "build #88 failed on main", 88, 59 * 60),
    ("cmc/dotfiles", "issue", "noor", "commented on issue #4", 4, 30 * 60),
    ("ops/infra", "mr", "tomasz", "approved merge request #7", 7, 25 * 60),
    ("ops/infra", "build", "ci", "build #203 passed on release", 203, 17 * 60),
]
DEMO_FOLLOW_UPS = [
    ("krz/gitbay", "issue", "noor", "opened issue #{n}"),
    ("ops/infra", "mr", "alba", "opened merge request #{n}"),
    ("krz/gitbay", "build", "ci", "build #{n} failed on main"),
    ("cmc/dotfiles", "mr", "cmc", "merged merge request #{n}"),
]


def demo_items(ago):
    """(kind, repo, data) for every seeded notice; `ago(seconds)` is a timestamp that long ago."""
    return [
        ("issue", "krz/gitbay", {
            "number": 12, "title": "Crash on an empty repository", "state": "open", "author": "cmc",
            "created_at": ago(2 * DAY), "labels": ["bug", "api"], "assignees": ["alba"],
            "milestone": "v1.33", "body_format": "md",
            "body": ("Running `issue list` in a repository with no commits panics with a nil "
                     "pointer dereference instead of printing an empty list.\n\n"
                     "Steps:\n\n1. `gitbay repo create krz/empty`\n2. `gitbay issue list krz/empty`"
                     "\n\n    panic: runtime error: invalid memory address\n\n"
                     "Seen on v1.32.4; v1.31 printed nothing, as it should."),
            "reactions": [{"count": 3, "me": True, "reaction": "+1"},
                          {"count": 1, "me": False, "reaction": "eyes"}],
            "comments": [
                {"id": 101, "author": "alba", "body_format": "md", "created_at": ago(DAY + 5 * HOUR),
                 "body": "Reproduced on main. The list query assumes a default branch exists.",
                 "reactions": [{"count": 1, "me": False, "reaction": "heart"}]},
                {"id": 102, "author": "system", "body": "alba added the label api",
                 "created_at": ago(DAY + 4 * HOUR)},
                {"id": 103, "author": "noor", "body_format": "md", "created_at": ago(3 * HOUR),
                 "body": "Same crash for `mr list`, so the fix probably belongs in the shared "
                         "branch lookup rather than in each command."},
            ],
        }),
        ("mr", "krz/gitbay", {
            "number": 31, "title": "Look up the default branch once per request", "state": "open",
            "author": "alba", "created_at": ago(5 * HOUR), "draft": False, "source": "fix-empty-repo",
            "target_ref": "main", "head_sha": "4f1c2a9e8b7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b",
            "labels": ["bug"], "review_requests": ["krz"], "body_format": "md",
            "body": "Fixes #12: an empty repository has no default branch, and every list command "
                    "now says so instead of crashing.",
            "checks": [
                {"context": "ci/test", "state": "success", "url": "", "updated_at": ago(4 * HOUR),
                 "duration": "1m12s"},
                {"context": "ci/lint", "state": "failure", "url": "", "updated_at": ago(4 * HOUR),
                 "duration": "21s"},
            ],
            "checks_combined": "failure", "unresolved_threads": 1,
            "commits": [
                {"sha": "9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b", "subject": "Share the branch lookup"},
                {"sha": "4f1c2a9e8b7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b", "subject": "Say 'no commits yet' for empty repositories"},
            ],
            "reviews": [
                {"reviewer": "cmc", "verdict": "approve", "stale": True, "counts": False,
                 "created_at": ago(4 * HOUR + 30 * 60)},
                {"reviewer": "noor", "verdict": "request_changes", "stale": False, "counts": True,
                 "created_at": ago(2 * HOUR)},
            ],
            "gates": {"draft": False, "approvals_required": 1, "approvals": [],
                      "changes_requested": ["noor"], "codeowners_required": False,
                      "owners_outstanding": [], "resolved_required": True, "open_threads": 1,
                      "checks_required": True, "checks": "failure", "checks_missing": [],
                      "fast_forward": True,
                      "unmet": ["1 approval needed", "changes requested by noor",
                                "1 open thread", "check ci/lint failed"]},
            "comments": [
                {"id": 201, "author": "noor", "body_format": "md", "created_at": ago(2 * HOUR),
                 "body": "The lint failure is real: the new helper is unused in `mr list`."},
            ],
        }),
        ("build", "krz/gitbay", {
            "number": 88, "job": "test", "status": "failure", "ref": "main",
            "sha": "0123456789abcdef0123456789abcdef01234567", "created_at": ago(HOUR),
            "finished_at": ago(HOUR - 72), "duration_s": 72, "failed_step": 2,
            "failed_reason": "exit 1", "steps": ["go vet ./...", "go test ./...", "go build ./cmd/gitbay"],
        }),
        ("issue", "cmc/dotfiles", {
            "number": 4, "title": "tmux config breaks on 3.3", "state": "open", "author": "cmc",
            "created_at": ago(6 * DAY), "body": "`set -g status-style` moved; the old spelling is an error now.",
            "body_format": "md",
            "comments": [{"id": 301, "author": "noor", "body": "Patch incoming.", "body_format": "md",
                          "created_at": ago(30 * 60)}],
        }),
        ("mr", "ops/infra", {
            "number": 7, "title": "Rotate the relay's TLS certificate", "state": "merged",
            "author": "tomasz", "created_at": ago(3 * DAY), "draft": False, "source": "rotate-cert",
            "target_ref": "main", "head_sha": "aa11bb22cc33dd44ee55ff66aa77bb88cc99dd00",
            "merged_at": ago(DAY), "merged_by": "tomasz",
            "checks": [{"context": "ci/deploy-dry-run", "state": "success", "url": "",
                        "updated_at": ago(DAY), "duration": "3m05s"}],
            "checks_combined": "success",
            "reviews": [{"reviewer": "demo", "verdict": "approve", "stale": False, "counts": True,
                         "created_at": ago(DAY + HOUR)}],
            "commits": [{"sha": "aa11bb22cc33dd44ee55ff66aa77bb88cc99dd00", "subject": "New certificate, valid to 2027"}],
        }),
        ("build", "ops/infra", {
            "number": 203, "job": "deploy", "status": "success", "ref": "release",
            "sha": "aa11bb22cc33dd44ee55ff66aa77bb88cc99dd00", "created_at": ago(20 * 60),
            "finished_at": ago(17 * 60), "duration_s": 184, "steps": ["make plan", "make apply"],
        }),
    ]


def follow_up_item(kind, actor, number, summary):
    """A plain item for a notice the demo adds later."""
    if kind == "build":
        return {"number": number, "job": "test", "status": "failure", "ref": "main",
                "sha": f"{number:040x}", "failed_step": 1, "failed_reason": "exit 2",
                "duration_s": 40, "steps": ["make test"]}
    title = {"issue": "The relay example in the docs is out of date", "mr": "Bump the Go toolchain"}[kind]
    data = {"number": number, "title": title, "state": "open", "author": actor,
            "body": f"Made by the demo: {summary}.", "body_format": "md"}
    if kind == "mr":
        data.update(draft=False, source=f"demo-{number}", target_ref="main", head_sha=f"{number:040x}")
    return data


def write_private_file(path, text):
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as file:
        os.fchmod(file.fileno(), 0o600)
        file.write(text)


def seed_demo(store, token_file):
    store.add_user(DEMO_USER)
    token = store.mint_token(DEMO_USER)
    now = store.clock.wall()
    for kind, repo, data in demo_items(lambda seconds: iso_timestamp(now - seconds)):
        store.items.add_item(kind, repo, data)
    for repo, kind, actor, summary, number, seconds in DEMO_NOTICES:
        store.add_notice(DEMO_USER, repo=repo, kind=kind, actor=actor, summary=summary,
                         path=f"{repo}/{KIND_SEGMENTS[kind]}/{number}",
                         created_at=iso_timestamp(now - seconds))
    if token_file:
        write_private_file(token_file, token + "\n")
    return token


def announce_demo(url, token, token_file, interval, relay=None):
    lines = [f"demo: user {DEMO_USER!r} with a full API token: {token}"]
    if token_file:
        lines += [f"demo: the token is also in {token_file} (mode 0600)",
                  "demo: add the account with:",
                  f"    gbnotifyctl account add {url} < {token_file}"]
    else:
        lines += ["demo: add the account with:",
                  f"    printf '%s\\n' '{token}' | gbnotifyctl account add {url}"]
    lines += [f"demo: a new notice every {interval:g} s; the inbox is {url}/notifications"]
    if relay:
        lines += [f"demo: every other one is also published to {relay}, on each device's topic"]
    lines += [
              f"demo: script it further through {url}/_standin/ (see Tests/Standin/README.md)"]
    print("\n".join(lines), file=sys.stderr, flush=True)


def run_demo_notices(store, interval, stop, relay=None):
    for step in itertools.count():
        if stop.wait(interval):
            return
        repo, kind, actor, summary = DEMO_FOLLOW_UPS[step % len(DEMO_FOLLOW_UPS)]
        number = 100 + step
        with store.lock:
            if DEMO_USER not in store.accounts:  # a test reset the stand-in
                continue
            store.items.add_item(kind, repo, follow_up_item(kind, actor, number, summary.format(n=number)))
            pushed = len(store.pushes)
            store.add_notice(DEMO_USER, repo=repo, kind=kind, actor=actor,
                             summary=summary.format(n=number),
                             path=f"{repo}/{KIND_SEGMENTS[kind]}/{number}")
            pushes = store.pushes[pushed:]
        # The others are left for the next poll, so that the demo shows both ways in.
        if relay and step % 2 == 0:
            for push in pushes:
                publish(relay, push["token"], push["payload"])


def publish(relay, topic, payload):
    """ntfy's publish: the push payload as the message, on the device's topic."""
    request = urllib.request.Request(f"{relay}/{topic}", data=json.dumps(payload).encode(), method="POST")
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            response.read()
    except (OSError, urllib.error.URLError) as error:
        print(f"demo: could not publish to {relay}: {error}", file=sys.stderr, flush=True)


