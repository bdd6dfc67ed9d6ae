"""The stand-in's data: accounts, tokens, notices, devices, rate limits, clock.

Everything lives behind one re-entrant lock (`Store.lock`); the HTTP layer
holds it for the whole of an API request so each request sees and changes the
state atomically, like one database transaction.
"""

import base64
import collections
import dataclasses
import datetime
import hashlib
import math
import re
import secrets
import threading
import time

USERNAME_PATTERN = re.compile(r"[A-Za-z0-9._-]{1,64}")
# An account's standing: only an active one may read items.
ACCOUNT_STATES = ("active", "disabled", "unverified")
ITEM_KINDS = ("issue", "mr", "build")
REPO_PATTERN = re.compile(r"[A-Za-z0-9._-]+/[A-Za-z0-9._-]+")
KINDS = ("issue", "mr", "build")
# The web path segment and summary noun of each kind.
# Where an item keeps who reacted how through `react` (never shown).
REACTORS = "_reactors"
KIND_SEGMENTS = {"issue": "issues", "mr": "mrs", "build": "builds"}
KIND_SUMMARIES = {"issue": "opened issue", "mr": "opened merge request", "build": "build failed"}

DEFAULT_CONFIG = {
    "api_enabled": True,
    "push_enabled": True,
    "dashboard_unread": True,
    "read_burst": 120,
    "read_refill": 2.0,
    "write_burst": 12,
    "write_refill": 0.2,
    "writes_per_minute": 60,
    "busy": False,
    "site_url": "",
    "push_format": "current",
}
LIMIT_KEYS = ("read_burst", "read_refill", "write_burst", "write_refill", "writes_per_minute")
PUSH_FORMATS = ("current", "no_badge", "oldest")
# `repo CHANGE` -> the state it leaves, as its output names it.
WATCH_STATES = {"mute": "muted", "watch": "watching", "unwatch": "default"}
# What Retry-After says when a bucket never refills.
NEVER_REFILLS_SECONDS = 3600
WRITE_WINDOW_SECONDS = 60.0


class ModelError(Exception):
    """Bad control input; `status` is the HTTP status the control API answers."""

    def __init__(self, message, status=400):
        super().__init__(message)
        self.status = status


class Clock:
    """Real time plus an offset tests can move forward instead of sleeping."""

    def __init__(self):
        self.offset = 0.0

    def monotonic(self):
        return time.monotonic() + self.offset

    def wall(self):
        return time.time() + self.offset


def iso_timestamp(seconds):
    moment = datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def token_hash(token):
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class TokenBucket:
    def __init__(self, burst, now):
        self.tokens = float(burst)
        self.stamp = now

    def refill(self, now, burst, rate):
        self.tokens = min(float(burst), self.tokens + (now - self.stamp) * rate)
        self.stamp = now

    def seconds_until_one(self, rate):
        if self.tokens >= 1.0:
            return 0.0
        if rate <= 0:
            return math.inf
        return (1.0 - self.tokens) / rate


@dataclasses.dataclass
class Account:
    username: str
    admin: bool
    # Makes ETags differ between two accounts of one name across a reset.
    salt: str
    read_bucket: TokenBucket
    write_bucket: TokenBucket
    write_times: collections.deque
    version: int = 1
    status: str = "active"
    settings: dict = dataclasses.field(
        default_factory=lambda: {"mail": True, "watch": True, "push": True})
    # `repo mute|watch|unwatch`: repository -> "muted" or "watching"; the default leaves no trace.
    watch_states: dict = dataclasses.field(default_factory=dict)

    def etag(self):
        return '"' + hashlib.md5(f"{self.salt}:{self.version}".encode()).hexdigest() + '"'


@dataclasses.dataclass
class Token:
    sha256: str
    username: str
    scope: str
    expires_at: float | None  # on the stand-in's monotonic clock
    expires_wall: float | None
    name: str = ""
    created_at: str = ""
    last_used_at: str | None = None
    revoked: bool = False
    # What minted it, as `token list` says (the contract names the field, not its values: the
    # stand-in says "web" for a token a test made, "ssh key" or "token NAME" for a minted one),
    # and the hash of the token that minted it, if one did.
    created_by: str = "web"
    creator: str | None = None

    def listed(self):
        """The row `token list` shows: never the token."""
        row = {"name": self.name, "scope": self.scope, "created_at": self.created_at,
               "created_by": self.created_by}
        if self.expires_wall is not None:
            row["expires_at"] = iso_timestamp(self.expires_wall)
        if self.last_used_at is not None:
            row["last_used_at"] = self.last_used_at
        return row


@dataclasses.dataclass
class Notice:
    id: int
    seq: int  # insertion order, breaks ties between test-made duplicate ids
    username: str
    repo: str
    kind: str
    actor: str
    summary: str
    path: str
    created_at: str
    read_at: str | None = None

    def row(self):
        row = {"id": self.id, "repo": self.repo, "kind": self.kind, "actor": self.actor,
               "summary": self.summary, "path": self.path, "created_at": self.created_at}
        if self.read_at is not None:
            row["read_at"] = self.read_at
        return row


@dataclasses.dataclass
class Device:
    id: int
    username: str
    label: str
    token: str
    added: str


@dataclasses.dataclass
class Repository:
    name: str
    # None: every account may read it; otherwise only these usernames.
    readers: set | None
    # Read-only: comments and reactions are refused.
    archived: bool = False

    def readable_by(self, username):
        return self.readers is None or username in self.readers


class ItemStore:
    """Repositories and their issues, merge requests and builds, each item kept as the JSON its
    `show` command answers with. Lives inside the Store and shares its lock."""

    def __init__(self, store):
        self.store = store
        self.repositories = {}
        self.items = {}  # (kind, repo, number) -> data
        self.next_numbers = {}  # (kind, repo) -> next number

    def add_repository(self, name, readers=None, archived=False):
        if not isinstance(name, str) or not REPO_PATTERN.fullmatch(name):
            raise ModelError("repo must be OWNER/NAME of [A-Za-z0-9._-]")
        if readers is not None and (not isinstance(readers, list)
                                    or not all(isinstance(r, str) for r in readers)):
            raise ModelError("readers must be an array of usernames")
        if not isinstance(archived, bool):
            raise ModelError("archived must be true or false")
        with self.store.lock:
            old = self.repositories.get(name)
            self.repositories[name] = Repository(name, None if readers is None else set(readers),
                                                 archived)
            self._changed(name, old)
            return self.repositories[name]

    def note_repository(self, name):
        """A notice's repository exists, readable by everyone, if nothing said otherwise. No ETag
        changes: it has no items yet, and the notice itself changes its account's."""
        if name not in self.repositories and REPO_PATTERN.fullmatch(name):
            self.repositories[name] = Repository(name, None)

    def add_item(self, kind, repo, data):
        if kind not in ITEM_KINDS:
            raise ModelError("kind must be issue, mr or build")
        if not isinstance(data, dict):
            raise ModelError("data must be a JSON object")
        number = data.get("number")
        if number is not None and (isinstance(number, bool) or not isinstance(number, int)
                                   or number < 1):
            raise ModelError("number must be a positive integer")
        with self.store.lock:
            if repo not in self.repositories:
                self.add_repository(repo)
            if number is None:
                number = self.next_numbers.get((kind, repo), 1)
            self.next_numbers[(kind, repo)] = max(self.next_numbers.get((kind, repo), 1), number + 1)
            item = dict(data, number=number)
            item.setdefault("created_at", iso_timestamp(self.store.clock.wall()))
            self.items[(kind, repo, number)] = item
            self._changed(repo)
            return number

    def next_comment_id(self):
        """Comment ids are one series per instance."""
        return 1 + max((c.get("id", 0) for item in self.items.values()
                        for c in item.get("comments", []) if isinstance(c.get("id"), int)),
                       default=0)

    @staticmethod
    def react(target, reaction, username, on):
        """One state per (user, item or comment, reaction): `on` sets it, else takes it back.
        Kept beside the seeded `reactions` (counts a test wrote) under REACTORS."""
        reactors = target.setdefault(REACTORS, {}).setdefault(reaction, [])
        if on and username not in reactors:
            reactors.append(username)
        if not on and username in reactors:
            reactors.remove(username)

    @staticmethod
    def seen_by(item, username):
        """The item as `username` sees it: reactions given through `react` counted in, `me`
        theirs."""
        def merged(target):
            shown = {key: value for key, value in target.items() if key != REACTORS}
            reactors = target.get(REACTORS, {})
            if not reactors:
                return shown
            rows = [dict(row) for row in target.get("reactions", [])]
            for name, users in reactors.items():
                row = next((r for r in rows if r.get("reaction") == name), None)
                if row is None:
                    row = {"count": 0, "me": False, "reaction": name}
                    rows.append(row)
                row["count"] = row.get("count", 0) + len(users)
                row["me"] = row.get("me", False) or username in users
            shown["reactions"] = [row for row in rows if row["count"] > 0]
            return shown
        seen = merged(item)
        if "comments" in item:
            seen["comments"] = [merged(comment) for comment in item["comments"]]
        return seen

    def changed(self, repo):
        """An item of `repo` changed: the ETags of those who may read it change."""
        self._changed(repo)

    def _changed(self, repo, old=None):
        """An item or a repository's readers changed: what some accounts can read changed."""
        now = self.repositories.get(repo)
        for account in self.store.accounts.values():
            if any(r is not None and r.readable_by(account.username) for r in (old, now)):
                account.version += 1


class Store:
    def __init__(self, site_url):
        self.lock = threading.RLock()
        self.clock = Clock()
        self.startup_site_url = site_url
        self.reset()

    def reset(self):
        with self.lock:
            self.config = dict(DEFAULT_CONFIG, site_url=self.startup_site_url)
            self.clock.offset = 0.0
            self.accounts = {}
            self.tokens = {}  # sha256 -> Token
            self.notices = []
            self.devices = {}  # id -> Device
            self.pushes = []
            self.next_notice_id = 1
            self.next_notice_seq = 1
            self.next_device_id = 1
            self.path_numbers = collections.Counter()
            self.items = ItemStore(self)

    # Accounts and tokens

    def add_user(self, username, admin=False, status=None):
        if not isinstance(username, str) or not USERNAME_PATTERN.fullmatch(username):
            raise ModelError("username must match [A-Za-z0-9._-]{1,64}")
        if status is not None and status not in ACCOUNT_STATES:
            raise ModelError("status must be one of " + ", ".join(ACCOUNT_STATES))
        with self.lock:
            account = self.accounts.get(username)
            if account is None:
                now = self.clock.monotonic()
                account = Account(username=username, admin=bool(admin), salt=secrets.token_hex(8),
                                  read_bucket=TokenBucket(self.config["read_burst"], now),
                                  write_bucket=TokenBucket(self.config["write_burst"], now),
                                  write_times=collections.deque())
                self.accounts[username] = account
            elif account.admin != bool(admin):
                account.admin = bool(admin)
                account.version += 1
            if status is not None and status != account.status:
                account.status = status
                account.version += 1
            return account

    def account(self, username):
        if not isinstance(username, str):
            raise ModelError("username must be a string")
        account = self.accounts.get(username)
        if account is None:
            raise ModelError(f"no such user {username!r}", status=404)
        return account

    def mint_token(self, username, scope="full", token=None, expires_in=None, name=None,
                   minted_by=None):
        """`minted_by`: the Token whose request minted it, "ssh key", or None (a test's)."""
        if name is not None and (not isinstance(name, str) or name == ""):
            raise ModelError("name must be a non-empty string")
        if scope not in ("full", "read"):
            raise ModelError('scope must be "full" or "read"')
        if token is not None and (not isinstance(token, str) or token == ""):
            raise ModelError("token must be a non-empty string")
        if expires_in is not None and (isinstance(expires_in, bool)
                                       or not isinstance(expires_in, (int, float))):
            raise ModelError("expires_in must be a number of seconds")
        with self.lock:
            self.account(username)
            token = token if token is not None else "gb_" + secrets.token_hex(20)
            expires_at = expires_wall = None
            if expires_in is not None:
                expires_at = self.clock.monotonic() + expires_in
                expires_wall = self.clock.wall() + expires_in
            if name is None:
                name = f"token-{len(self.tokens) + 1}"
            elif self.token_named(username, name) is not None:
                raise ModelError(f'a token named "{name}" already exists')
            record = Token(token_hash(token), username, scope, expires_at, expires_wall,
                           name=name, created_at=iso_timestamp(self.clock.wall()))
            if isinstance(minted_by, Token):
                record.created_by, record.creator = f"token {minted_by.name}", minted_by.sha256
            elif minted_by is not None:
                record.created_by = minted_by
            self.tokens[token_hash(token)] = record
            return token

    def token_named(self, username, name):
        """The account's live (not revoked, not expired) token of that name, or None."""
        with self.lock:
            now = self.clock.monotonic()
            return next((t for t in self.tokens.values()
                         if t.username == username and t.name == name and not t.revoked
                         and (t.expires_at is None or now < t.expires_at)), None)

    def tokens_created_by(self, record):
        """The live tokens `record` minted."""
        with self.lock:
            return [t for t in self.tokens_of(record.username) if t.creator == record.sha256]

    def tokens_of(self, username):
        """The account's live tokens, oldest first."""
        with self.lock:
            now = self.clock.monotonic()
            return [t for t in self.tokens.values() if t.username == username and not t.revoked
                    and (t.expires_at is None or now < t.expires_at)]

    def revoke_token(self, token):
        with self.lock:
            record = self.tokens.get(token_hash(token)) if isinstance(token, str) else None
            if record is None:
                raise ModelError("no such token", status=404)
            record.revoked = True

    def authenticate(self, authorization):
        """Returns ("missing"|"invalid", None, None) or ("ok", Account, Token)."""
        prefix = "Bearer "
        if authorization is None or not authorization.startswith(prefix):
            return "missing", None, None
        presented = authorization[len(prefix):]
        if presented == "":
            return "missing", None, None
        with self.lock:
            record = self.tokens.get(token_hash(presented))
            if (record is None or record.revoked
                    or (record.expires_at is not None
                        and self.clock.monotonic() >= record.expires_at)
                    or record.username not in self.accounts):
                return "invalid", None, None
            record.last_used_at = iso_timestamp(self.clock.wall())
            return "ok", self.accounts[record.username], record

    # Rate limits

    def admit(self, account, writes):
        """Takes a request from the buckets; returns None or Retry-After seconds."""
        with self.lock:
            now = self.clock.monotonic()
            config = self.config
            buckets = [(account.read_bucket, config["read_burst"], config["read_refill"])]
            if writes:
                buckets.append((account.write_bucket, config["write_burst"],
                                config["write_refill"]))
            wait = 0.0
            for bucket, burst, rate in buckets:
                bucket.refill(now, burst, rate)
                wait = max(wait, bucket.seconds_until_one(rate))
            if wait > 0:
                return NEVER_REFILLS_SECONDS if math.isinf(wait) else max(1, math.ceil(wait))
            for bucket, _, _ in buckets:
                bucket.tokens -= 1.0
            return None

    def admit_write(self, account):
        """The per-minute write limiter; returns None or seconds until a slot frees."""
        with self.lock:
            now = self.clock.monotonic()
            times = account.write_times
            while times and times[0] <= now - WRITE_WINDOW_SECONDS:
                times.popleft()
            if len(times) >= self.config["writes_per_minute"]:
                if not times:
                    return NEVER_REFILLS_SECONDS
                return max(1, math.ceil(times[0] + WRITE_WINDOW_SECONDS - now))
            times.append(now)
            return None

    # Configuration and clock

    def configure(self, changes):
        if not isinstance(changes, dict):
            raise ModelError("config must be a JSON object")
        unknown = sorted(set(changes) - set(DEFAULT_CONFIG))
        if unknown:
            raise ModelError("unknown config keys: " + ", ".join(unknown))
        for key, value in changes.items():
            expected = type(DEFAULT_CONFIG[key])
            if expected is float:
                valid = isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0
            elif expected is int:
                valid = isinstance(value, int) and not isinstance(value, bool) and value >= 0
            else:
                valid = isinstance(value, expected)
            if not valid:
                raise ModelError(f"{key} must be a {expected.__name__}"
                                 + (" >= 0" if expected in (int, float) else ""))
        if changes.get("push_format", "current") not in PUSH_FORMATS:
            raise ModelError("push_format must be one of " + ", ".join(PUSH_FORMATS))
        with self.lock:
            if ("dashboard_unread" in changes
                    and changes["dashboard_unread"] != self.config["dashboard_unread"]):
                for account in self.accounts.values():
                    account.version += 1
            self.config.update(changes)
            if any(key in changes for key in LIMIT_KEYS):
                now = self.clock.monotonic()
                for account in self.accounts.values():
                    account.read_bucket = TokenBucket(self.config["read_burst"], now)
                    account.write_bucket = TokenBucket(self.config["write_burst"], now)
                    account.write_times.clear()
            return dict(self.config)

    def advance_clock(self, seconds):
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or seconds < 0:
            raise ModelError("advance must be a number of seconds >= 0")
        with self.lock:
            self.clock.offset += seconds
            return self.clock.offset

    # Notices

    def add_notice(self, username, repo="krz/gitbay", kind="issue", actor="cmc", summary=None,
                   path=None, notice_id=None, read=False, created_at=None):
        for name, value in (("repo", repo), ("kind", kind), ("actor", actor)):
            if not isinstance(value, str) or value == "":
                raise ModelError(f"{name} must be a non-empty string")
        for name, value in (("summary", summary), ("path", path), ("created_at", created_at)):
            if value is not None and not isinstance(value, str):
                raise ModelError(f"{name} must be a string")
        if notice_id is not None and (isinstance(notice_id, bool) or not isinstance(notice_id, int)):
            raise ModelError("id must be an integer")
        with self.lock:
            account = self.account(username)
            # A muted repository files no inbox row (nor push) for that account.
            if account.watch_states.get(repo) == "muted":
                return None
            self.items.note_repository(repo)
            if path is None or summary is None:
                self.path_numbers[(repo, kind)] += 1
                number = self.path_numbers[(repo, kind)]
                if path is None:
                    path = f"{repo}/{KIND_SEGMENTS.get(kind, kind)}/{number}"
                if summary is None:
                    summary = f"{KIND_SUMMARIES.get(kind, 'updated ' + kind)} #{number}"
            if notice_id is None:
                notice_id = self.next_notice_id
            self.next_notice_id = max(self.next_notice_id, notice_id + 1)
            now = iso_timestamp(self.clock.wall())
            notice = Notice(id=notice_id, seq=self.next_notice_seq, username=username, repo=repo,
                            kind=kind, actor=actor, summary=summary, path=path,
                            created_at=created_at or now, read_at=now if read else None)
            self.next_notice_seq += 1
            self.notices.append(notice)
            account.version += 1
            if not read:
                self._record_pushes(account, notice)
            return notice

    def _record_pushes(self, account, notice):
        if not self.config["push_enabled"] or not account.settings["push"]:
            return
        payload = {
            "aps": {
                "alert": {"title": notice.repo, "body": notice.actor + " " + notice.summary},
                "sound": "default",
                "badge": self.unread_count(account.username),
                "thread-id": notice.repo,
            },
            "path": notice.path,
            "instance": self.config["site_url"],
            "user": account.username,
        }
        if self.config["push_format"] != "current":
            del payload["aps"]["badge"]
        if self.config["push_format"] == "oldest":
            del payload["instance"], payload["user"]
        for device in self.devices_of(account.username):
            self.pushes.append({"device_id": device.id, "token": device.token, "payload": payload})

    def notices_of(self, username, include_read):
        """The account's inbox, newest first (ORDER BY id DESC)."""
        with self.lock:
            rows = [n for n in self.notices
                    if n.username == username and (include_read or n.read_at is None)]
            return sorted(rows, key=lambda n: (n.id, n.seq), reverse=True)

    def unread_count(self, username):
        with self.lock:
            return sum(1 for n in self.notices if n.username == username and n.read_at is None)

    def mark_read(self, username, ids=None):
        """Marks the account's unread notices (all, or those with the given ids) read.

        Returns (rows changed, the given ids that changed nothing)."""
        with self.lock:
            account = self.account(username)
            wanted = None if ids is None else set(ids)
            now = iso_timestamp(self.clock.wall())
            changed_rows = 0
            changed_ids = set()
            for notice in self.notices:
                if (notice.username == username and notice.read_at is None
                        and (wanted is None or notice.id in wanted)):
                    notice.read_at = now
                    changed_rows += 1
                    changed_ids.add(notice.id)
            if changed_rows:
                account.version += 1
            unmatched = [] if wanted is None else sorted(wanted - changed_ids)
            return changed_rows, unmatched

    # Devices

    def devices_of(self, username):
        with self.lock:
            return sorted((d for d in self.devices.values() if d.username == username),
                          key=lambda d: d.id)

    def upsert_device(self, username, label, token):
        with self.lock:
            account = self.account(username)
            device = next((d for d in self.devices.values() if d.token == token), None)
            if device is None:
                device = Device(id=self.next_device_id, username=username, label=label,
                                token=token, added=iso_timestamp(self.clock.wall()))
                self.next_device_id += 1
                self.devices[device.id] = device
                account.version += 1
            elif device.username != username:
                self.accounts[device.username].version += 1
                device.username, device.label = username, label
                account.version += 1
            elif device.label != label:
                device.label = label
                account.version += 1
            return device

    def remove_device(self, device_id, username=None):
        """Removes a device (only if it belongs to `username`, when given)."""
        with self.lock:
            device = self.devices.get(device_id)
            if device is None or (username is not None and device.username != username):
                return False
            del self.devices[device_id]
            self.accounts[device.username].version += 1
            return True

    def reap_device(self, device_id=None, token=None):
        if device_id is not None and (isinstance(device_id, bool) or not isinstance(device_id, int)):
            raise ModelError("id must be an integer")
        if token is not None and not isinstance(token, str):
            raise ModelError("token must be a string")
        with self.lock:
            if token is not None:
                device_id = next((d.id for d in self.devices.values() if d.token == token), None)
            if device_id is None or not self.remove_device(device_id):
                raise ModelError("no such device", status=404)

    # Watch states

    def set_watch_state(self, username, repo, change):
        """`repo CHANGE REPO` for the account; returns the state it is in now, or None when the
        account may not read the repository (or it does not exist). Not part of any read answer,
        so no ETag changes."""
        with self.lock:
            account = self.account(username)
            repository = self.items.repositories.get(repo)
            if repository is None or not repository.readable_by(username):
                return None
            state = WATCH_STATES[change]
            if state == "default":
                account.watch_states.pop(repo, None)
            else:
                account.watch_states[repo] = state
            return state

    # Settings

    def update_settings(self, username, changes):
        for key, value in changes.items():
            if key not in ("mail", "watch", "push") or not isinstance(value, bool):
                raise ModelError("settings are mail, watch and push, each a boolean")
        with self.lock:
            account = self.account(username)
            if any(account.settings[key] != value for key, value in changes.items()):
                account.settings.update(changes)
                account.version += 1
            return dict(account.settings)

    # Snapshot for assertions

    def snapshot(self):
        with self.lock:
            return {
                "users": [{"username": a.username, "admin": a.admin, "status": a.status,
                           "settings": dict(a.settings),
                           "unread": self.unread_count(a.username), "version": a.version,
                           "etag": a.etag()} for a in self.accounts.values()],
                "tokens": [{"username": t.username, "name": t.name, "scope": t.scope,
                            "sha256": t.sha256,
                            "expires_at": None if t.expires_wall is None
                            else iso_timestamp(t.expires_wall),
                            "revoked": t.revoked} for t in self.tokens.values()],
                "settings": {a.username: dict(a.settings) for a in self.accounts.values()},
                "watch_states": [{"username": a.username, "repo": repo, "state": state}
                                 for a in self.accounts.values()
                                 for repo, state in sorted(a.watch_states.items())],
                "devices": [dataclasses.asdict(d) for d in sorted(self.devices.values(),
                                                                  key=lambda d: d.id)],
                "notifications": [dict(n.row(), username=n.username, read_at=n.read_at)
                                  for n in self.notices],
                "pushes": list(self.pushes),
                "config": dict(self.config),
            }


def encode_cursor(notice):
    raw = f"v1:{notice.id}:{notice.seq}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor):
    """Returns the (id, seq) key a page continues below, or None if malformed."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        version, notice_id, seq = raw.split(":")
        if version != "v1":
            return None
        return int(notice_id), int(seq)
    except (ValueError, UnicodeDecodeError):
        return None
