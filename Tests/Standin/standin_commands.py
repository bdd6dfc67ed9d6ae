"""gitbay's command registry, as far as gbnotify uses it: one table of commands.

A command gets the calling account, its arguments after the command path and
its stdin, and returns an Outcome: an exit code plus JSON data, an error, or
plain-text output. The HTTP layer wraps the Outcome in the envelope.
"""

import dataclasses
import re

from standin_model import KIND_SEGMENTS, ModelError, decode_cursor, encode_cursor, iso_timestamp

EXIT_OK, EXIT_FAILURE, EXIT_USAGE, EXIT_NOT_FOUND, EXIT_DENIED = 0, 1, 2, 3, 4

BARE_LIST_ROWS = 50
MAX_LIMIT = 200
MAX_INSTALL_TOKEN_BYTES = 512
MAX_LABEL_BYTES = 255
PUSH_DISABLED = ("this instance does not send push notifications ([push] enabled = false); "
                 "ask an admin")
ACCOUNT_DISABLED = "this account is disabled; ask an admin of this instance"
ACCOUNT_INACTIVE = "your account is not active yet: confirm your email address first"
# How the item commands name their kind in errors: `bad MR number "x"`.
ITEM_NOUNS = {"issue": "issue", "mr": "MR", "build": "build"}
# A number as the server's integer parsing reads it: an optional sign and decimal digits.
ITEM_NUMBER = re.compile(r"[+-]?[0-9]+")
MAX_TOKEN_NAME_BYTES = 255
TTL = re.compile(r"([1-9][0-9]{0,5})([dh])")
TOKEN_SCOPES = ("full", "read")
EXPIRING_MINTER = ("token create creates a credential, and the one this request came with "
                   "expires; use a token or key without an expiry")
# `--file -` reads at most this much of stdin; the rest is not read.
MAX_COMMENT_FILE_BYTES = 64 * 1024
EMPTY_COMMENT = "empty comment; use --message or --file -"
# The reactions gitbay's internal/store knows, in its order.
REACTIONS = ("+1", "-1", "laugh", "hooray", "confused", "heart", "rocket", "eyes")
COMMENTED = {"issue": "commented on issue #{}", "mr": "commented on merge request !{}"}
MENTION = re.compile(r"(?<![A-Za-z0-9_.-])@([A-Za-z0-9_][A-Za-z0-9_.-]*)")


@dataclasses.dataclass
class Outcome:
    exit_code: int
    data: object = None
    error: str | None = None
    output: str | None = None  # plain text instead of JSON data
    stderr: str | None = None


class UsageError(Exception):
    pass


def usage(message):
    return Outcome(EXIT_USAGE, error=message)


@dataclasses.dataclass
class Invocation:
    store: object
    account: object
    args: list
    stdin: str | None
    # What the request came with: its API token (a model Token), or "ssh key".
    credential: object = "ssh key"


@dataclasses.dataclass
class Command:
    path: tuple
    changes_state: bool
    run: object  # Invocation -> Outcome
    synopsis: str
    # It manages credentials: a read-scoped token may not run it, even when it changes nothing.
    credentials: bool = False

    @property
    def name(self):
        return " ".join(self.path)


def parse_flags(name, args, value_flags=(), bool_flags=()):
    """Splits args into ({flag: value}, positionals); `--` ends the flags."""
    flags, positionals = {}, []
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        if arg == "--":
            positionals.extend(args[index:])
            break
        if not arg.startswith("--"):
            positionals.append(arg)
            continue
        flag, has_value, value = arg.partition("=")
        if flag in bool_flags:
            if has_value:
                raise UsageError(f"{name}: flag {flag} takes no value")
            flags[flag] = True
        elif flag in value_flags:
            if not has_value:
                if index >= len(args):
                    raise UsageError(f"{name}: flag {flag} needs a value")
                value = args[index]
                index += 1
            flags[flag] = value
        else:
            raise UsageError(f"{name}: unknown flag {flag}")
    return flags, positionals


def required_flag(name, flags, flag, max_bytes):
    """The value of `flag`, which must be given, of 1..max_bytes bytes."""
    value = flags.get(flag)
    if value is None:
        raise UsageError(f"{name}: {flag} is required")
    if not 1 <= len(value.encode("utf-8")) <= max_bytes:
        raise UsageError(f"{name}: {flag} must be 1..{max_bytes} bytes")
    return value


def no_arguments(name, args):
    _, positionals = parse_flags(name, args)
    if positionals:
        raise UsageError(f"{name}: unexpected argument {positionals[0]}")


def whoami(call):
    no_arguments("whoami", call.args)
    # Over the API the key scope is always "full", whatever the token's scope.
    return Outcome(EXIT_OK, data={"username": call.account.username,
                                  "admin": call.account.admin, "key_scope": "full"})


def dashboard(call):
    no_arguments("dashboard", call.args)
    username = call.account.username
    data = {"username": username}
    if call.store.config["dashboard_unread"]:
        data["unread"] = call.store.unread_count(username)
    data["repos"] = sorted({n.repo for n in call.store.notices_of(username, include_read=True)})
    return Outcome(EXIT_OK, data=data)


def help_text(call):
    lines = ["gitbay commands:"]
    lines += [f"  {command.synopsis}" + ("" if command.changes_state else "  (read-only)")
              for command in COMMANDS]
    return Outcome(EXIT_OK, output="\n".join(lines) + "\n")


def notifications_list(call):
    name = "notifications list"
    flags, positionals = parse_flags(name, call.args, value_flags=("--limit", "--cursor"),
                                     bool_flags=("--all",))
    if positionals:
        raise UsageError(f"{name}: unexpected argument {positionals[0]}")
    rows = call.store.notices_of(call.account.username, include_read=flags.get("--all", False))
    if "--limit" not in flags and "--cursor" not in flags:
        return Outcome(EXIT_OK, data=[n.row() for n in rows[:BARE_LIST_ROWS]])
    limit = BARE_LIST_ROWS
    if "--limit" in flags:
        try:
            limit = int(flags["--limit"], 10)
        except ValueError:
            limit = 0
        if not 1 <= limit <= MAX_LIMIT:
            raise UsageError(f"--limit must be between 1 and {MAX_LIMIT}")
    if "--cursor" in flags:
        below = decode_cursor(flags["--cursor"])
        if below is None:
            raise UsageError("invalid cursor")
        rows = [n for n in rows if (n.id, n.seq) < below]
    data = {"items": [n.row() for n in rows[:limit]]}
    if len(rows) > limit:
        data["next"] = encode_cursor(rows[limit - 1])
    return Outcome(EXIT_OK, data=data)


def notifications_read(call):
    name = "notifications read"
    flags, positionals = parse_flags(name, call.args, bool_flags=("--all",))
    if flags.get("--all") and positionals:
        raise UsageError(f"{name}: give ids or --all, not both")
    if not flags.get("--all") and not positionals:
        raise UsageError(f"{name}: give ids or --all")
    if flags.get("--all"):
        changed, _ = call.store.mark_read(call.account.username)
        return Outcome(EXIT_OK, data={"read": changed})
    ids = []
    for arg in positionals:
        try:
            ids.append(int(arg, 10))
        except ValueError:
            raise UsageError(f"invalid id {arg}") from None
    changed, unmatched = call.store.mark_read(call.account.username, ids)
    stderr = None
    if unmatched:
        stderr = f"warning: {len(unmatched)} of {len(set(ids))} ids matched nothing\n"
    return Outcome(EXIT_OK, data={"read": changed}, stderr=stderr)


def settings_show(call):
    no_arguments("notifications settings show", call.args)
    return Outcome(EXIT_OK, data=dict(call.account.settings))


def settings_push(call):
    name = "notifications settings push"
    _, positionals = parse_flags(name, call.args)
    if positionals not in (["on"], ["off"]):
        raise UsageError(f"{name}: want on or off")
    settings = call.store.update_settings(call.account.username,
                                          {"push": positionals[0] == "on"})
    return Outcome(EXIT_OK, data=settings)


def device_add(call):
    name = "notifications device add"
    if not call.store.config["push_enabled"]:
        return Outcome(EXIT_FAILURE, error=PUSH_DISABLED)
    flags, positionals = parse_flags(name, call.args, value_flags=("--label",))
    if positionals:
        raise UsageError(f"{name}: unexpected argument {positionals[0]}")
    label = required_flag(name, flags, "--label", MAX_LABEL_BYTES)
    token = (call.stdin or "").strip()
    if not 1 <= len(token.encode("utf-8")) <= MAX_INSTALL_TOKEN_BYTES:
        raise UsageError(f"install token must be 1..{MAX_INSTALL_TOKEN_BYTES} bytes after trimming")
    device = call.store.upsert_device(call.account.username, label, token)
    return Outcome(EXIT_OK, data={"id": device.id, "status": "registered"})


def device_list(call):
    no_arguments("notifications device list", call.args)
    return Outcome(EXIT_OK, data=[
        {"id": d.id, "label": d.label, "token": d.token[:8] + "\u2026", "added": d.added}
        for d in call.store.devices_of(call.account.username)])


def device_remove(call):
    name = "notifications device remove"
    _, positionals = parse_flags(name, call.args)
    if len(positionals) != 1:
        raise UsageError(f"{name}: give one device id")
    try:
        device_id = int(positionals[0], 10)
    except ValueError:
        raise UsageError(f"invalid id {positionals[0]}") from None
    if not call.store.remove_device(device_id, username=call.account.username):
        return Outcome(EXIT_NOT_FOUND, error="no such device; see notifications device list")
    return Outcome(EXIT_OK, data={"status": "removed"})


def repo_watch(change):
    """`repo mute|watch|unwatch OWNER/REPO`: the account's watch state of the repository."""
    usage_line = f"usage: repo {change} <owner/name>"

    def run(call):
        if len(call.args) != 1 or call.args[0].startswith("-"):
            return usage(usage_line)
        repo = call.args[0]
        state = call.store.set_watch_state(call.account.username, repo, change)
        # A repository the caller may not read answers exactly as a missing one.
        if state is None:
            return Outcome(EXIT_NOT_FOUND, error=f"repository {repo} not found")
        return Outcome(EXIT_OK, data={"repo": repo, "state": state})

    return run


def token_create(call):
    name = "token create"
    flags, positionals = parse_flags(name, call.args, value_flags=("--name", "--scope", "--ttl"))
    if positionals:
        raise UsageError(f"{name}: unexpected argument {positionals[0]}")
    token_name = required_flag(name, flags, "--name", MAX_TOKEN_NAME_BYTES)
    # Since the credentials rework, no --scope makes a read token.
    scope = flags.get("--scope", "read")
    if scope not in TOKEN_SCOPES:
        raise UsageError(f"{name}: --scope must be full or read")
    expires_in = None
    if "--ttl" in flags:
        match = TTL.fullmatch(flags["--ttl"])
        if match is None:
            raise UsageError(f"{name}: --ttl must be like 30d or 720h")
        expires_in = int(match.group(1)) * (86400 if match.group(2) == "d" else 3600)
    if getattr(call.credential, "expires_at", None) is not None:
        return Outcome(EXIT_DENIED, error=EXPIRING_MINTER)
    try:
        token = call.store.mint_token(call.account.username, scope, expires_in=expires_in,
                                      name=token_name, minted_by=call.credential)
    except ModelError as error:
        raise UsageError(f"{name}: {error}") from None
    return Outcome(EXIT_OK, data={"name": token_name, "scope": scope, "token": token})


def token_list(call):
    no_arguments("token list", call.args)
    return Outcome(EXIT_OK, data=[t.listed() for t in call.store.tokens_of(call.account.username)])


def token_revoke(call):
    _, positionals = parse_flags("token revoke", call.args)
    if len(positionals) != 1:
        raise UsageError("token revoke: give one token name")
    with call.store.lock:
        record = call.store.token_named(call.account.username, positionals[0])
        if record is None:
            return Outcome(EXIT_NOT_FOUND, error=f'no token named "{positionals[0]}"')
        record.revoked = True
        # What it minted stays (the stand-in has no way to ask for more): counted, not revoked.
        created = len(call.store.tokens_created_by(record))
    return Outcome(EXIT_OK, data={"revoked": positionals[0],
                                  "created": {"tokens": created, "keys": 0},
                                  "created_revoked": False})


def find_item(call, kind, repo, number_text):
    """The item `KIND ... OWNER/REPO N` names, or the Outcome that says why there is none."""
    if call.account.status == "disabled":
        return Outcome(EXIT_DENIED, error=ACCOUNT_DISABLED)
    if call.account.status == "unverified":
        return Outcome(EXIT_DENIED, error=ACCOUNT_INACTIVE)
    if not ITEM_NUMBER.fullmatch(number_text):
        return usage(f'bad {ITEM_NOUNS[kind]} number "{number_text}"')
    number = int(number_text, 10)
    items = call.store.items
    repository = items.repositories.get(repo)
    # A repository the caller may not read answers exactly as a missing one.
    if repository is None or not repository.readable_by(call.account.username):
        return Outcome(EXIT_NOT_FOUND, error=f"repository {repo} not found")
    item = items.items.get((kind, repo, number))
    if item is None:
        missing = {"issue": f"issue #{number} not found in {repo}",
                   "mr": f"MR !{number} not found in {repo}",
                   "build": f"no build {number} on {repo}"}[kind]
        return Outcome(EXIT_NOT_FOUND, error=missing)
    return item


def item_comment(kind):
    """`KIND comment OWNER/REPO N [--message M | --file -] [--format md|org]` (runComment)."""
    usage_line = f"usage: {kind} comment <owner/name> <n> [--message <m> | --file -] [--format md|org]"

    def comment(call):
        flags, positionals = parse_flags(f"{kind} comment", call.args,
                                         value_flags=("--message", "--file", "--format"))
        if len(positionals) != 2:
            return usage(usage_line)
        if "--message" in flags and "--file" in flags:
            return usage(f"{kind} comment: --message and --file go alone\n{usage_line}")
        if flags.get("--file", "-") != "-":
            return usage(f"{kind} comment: --file takes only - (standard input)")
        body_format = flags.get("--format", "md")
        if body_format not in ("md", "org"):
            return usage(f"{kind} comment: --format must be md or org")
        if "--file" in flags:
            read = (call.stdin or "").encode("utf-8")[:MAX_COMMENT_FILE_BYTES]
            text = read.decode("utf-8", errors="ignore")
        else:
            text = flags.get("--message", "")
        if not text.strip():
            return usage(EMPTY_COMMENT)
        with call.store.lock:
            item = find_item(call, kind, *positionals)
            if isinstance(item, Outcome):
                return item
            repo = positionals[0]
            if call.store.items.repositories[repo].archived:
                return Outcome(EXIT_DENIED, error=f"repository {repo} is archived")
            author = call.account.username
            comments = item.setdefault("comments", [])
            participants = [item.get("author"), *item.get("assignees", []),
                            *(c.get("author") for c in comments)]
            comments.append({"author": author, "body": text, "body_format": body_format,
                             "created_at": iso_timestamp(call.store.clock.wall()),
                             "id": call.store.items.next_comment_id()})
            call.store.items.changed(repo)
            number = item["number"]
            told = []
            for user in participants + MENTION.findall(text):
                if (user in told or user in (author, "system", None)
                        or user not in call.store.accounts
                        or not call.store.items.repositories[repo].readable_by(user)):
                    continue
                told.append(user)
                call.store.add_notice(user, repo=repo, kind=kind, actor=author,
                                      summary=COMMENTED[kind].format(number),
                                      path=f"{repo}/{KIND_SEGMENTS[kind]}/{number}")
        return Outcome(EXIT_OK, data={"number": number})

    return comment


def item_react(kind):
    """`KIND react OWNER/REPO N [--comment ID] REACTION [--remove]` (react.go)."""
    usage_line = f"usage: {kind} react <owner/name> <n> [--comment <id>] <reaction> [--remove]"

    def react(call):
        flags, positionals = parse_flags(f"{kind} react", call.args, value_flags=("--comment",),
                                         bool_flags=("--remove",))
        if len(positionals) != 3:
            return usage(usage_line)
        repo, number_text, reaction = positionals
        if reaction not in REACTIONS:
            return usage(f'unknown reaction "{reaction}"; one of {", ".join(REACTIONS)}')
        comment_id = None
        if "--comment" in flags:
            if not ITEM_NUMBER.fullmatch(flags["--comment"]):
                return usage(f'bad comment id "{flags["--comment"]}"')
            comment_id = int(flags["--comment"], 10)
        with call.store.lock:
            item = find_item(call, kind, repo, number_text)
            if isinstance(item, Outcome):
                return item
            if call.store.items.repositories[repo].archived:
                return Outcome(EXIT_DENIED, error=f"repository {repo} is archived")
            target = item
            if comment_id is not None:
                target = next((c for c in item.get("comments", []) if c.get("id") == comment_id), None)
                if target is None:
                    return Outcome(EXIT_NOT_FOUND,
                                   error=f"comment {comment_id} not found on #{item['number']}")
            call.store.items.react(target, reaction, call.account.username, not flags.get("--remove"))
            call.store.items.changed(repo)
        data = {"reaction": reaction}
        if comment_id is not None:
            data["comment"] = comment_id
        if flags.get("--remove"):
            data["removed"] = True
        return Outcome(EXIT_OK, data=data)

    return react


# Fields the contract says are omitted when empty.
ISSUE_OPTIONAL = ("milestone", "labels", "assignees", "body", "body_format", "reactions", "comments")
MR_OPTIONAL = ISSUE_OPTIONAL + ("checks_combined",)
MR_GATED_STATES = ("open", "source_gone")
MR_STACKING = ("stacked_on", "stacked")


def shown(kind, item):
    """The item as the command returns it: the contract's omissions, keys sorted."""
    data = dict(item)
    optional = {"issue": ISSUE_OPTIONAL, "mr": MR_OPTIONAL, "build": ()}[kind]
    for field in optional:
        if field in data and data[field] in (None, "", [], {}):
            del data[field]
    if kind == "mr":
        if data.get("state") not in MR_GATED_STATES:
            data.pop("gates", None)
        if data.get("state") != "open":
            for field in MR_STACKING:
                data.pop(field, None)
        if not data.get("checks"):
            data.pop("checks_combined", None)
    return sorted_keys(data)


def sorted_keys(value):
    """What a round trip through a generic map does to a JSON value: object keys sorted."""
    if isinstance(value, dict):
        return {key: sorted_keys(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [sorted_keys(element) for element in value]
    return value


def item_show(kind):
    """`KIND show OWNER/REPO N`: one item, every comment, review and system entry with it."""
    usage_line = f"usage: {kind} show <owner/name> <n>"

    def show(call):
        if call.account.status == "disabled":
            return Outcome(EXIT_DENIED, error=ACCOUNT_DISABLED)
        if call.account.status == "unverified":
            return Outcome(EXIT_DENIED, error=ACCOUNT_INACTIVE)
        if len(call.args) < 2:
            return usage(f"expected <owner/name> <number>\n{usage_line}")
        if len(call.args) > 2:
            return usage(usage_line)
        with call.store.lock:
            item = find_item(call, kind, *call.args)
            if isinstance(item, Outcome):
                return item
            return Outcome(EXIT_OK, data=shown(kind, call.store.items.seen_by(item, call.account.username)))

    return show


COMMANDS = [
    Command(("whoami",), False, whoami, "whoami"),
    Command(("dashboard",), False, dashboard, "dashboard"),
    Command(("help",), False, help_text, "help"),
    Command(("notifications", "list"), False, notifications_list,
            "notifications list [--all] [--limit N] [--cursor C]"),
    Command(("notifications", "read"), True, notifications_read,
            "notifications read ID... | --all"),
    Command(("notifications", "settings", "show"), False, settings_show,
            "notifications settings show"),
    Command(("notifications", "settings", "push"), True, settings_push,
            "notifications settings push on|off"),
    Command(("notifications", "device", "add"), True, device_add,
            "notifications device add --label L  (install token on stdin)"),
    Command(("notifications", "device", "list"), False, device_list,
            "notifications device list"),
    Command(("notifications", "device", "remove"), True, device_remove,
            "notifications device remove ID"),
    Command(("issue", "show"), False, item_show("issue"), "issue show <owner/name> <n>"),
    Command(("mr", "show"), False, item_show("mr"), "mr show <owner/name> <n>"),
    Command(("build", "show"), False, item_show("build"), "build show <owner/name> <n>"),
    Command(("repo", "mute"), True, repo_watch("mute"), "repo mute <owner/name>"),
    Command(("repo", "watch"), True, repo_watch("watch"), "repo watch <owner/name>"),
    Command(("repo", "unwatch"), True, repo_watch("unwatch"), "repo unwatch <owner/name>"),
    Command(("issue", "comment"), True, item_comment("issue"),
            "issue comment <owner/name> <n> [--message <m> | --file -] [--format md|org]"),
    Command(("mr", "comment"), True, item_comment("mr"),
            "mr comment <owner/name> <n> [--message <m> | --file -] [--format md|org]"),
    Command(("issue", "react"), True, item_react("issue"),
            "issue react <owner/name> <n> [--comment <id>] <reaction> [--remove]"),
    Command(("mr", "react"), True, item_react("mr"),
            "mr react <owner/name> <n> [--comment <id>] <reaction> [--remove]"),
    Command(("token", "create"), True, token_create,
            "token create --name NAME [--scope full|read] [--ttl 30d|720h]", credentials=True),
    Command(("token", "list"), False, token_list, "token list", credentials=True),
    Command(("token", "revoke"), True, token_revoke, "token revoke NAME", credentials=True),
]
_BY_PATH = {command.path: command for command in COMMANDS}
_GROUPS = {command.path[:i] for command in COMMANDS for i in range(1, len(command.path))}


class UnknownCommand(Exception):
    pass


def lookup(argv):
    """Returns (command, remaining args); raises UnknownCommand naming what was not found."""
    words = []
    for index, word in enumerate(argv):
        words.append(word)
        key = tuple(words)
        if key in _BY_PATH:
            return _BY_PATH[key], argv[index + 1:]
        if key not in _GROUPS:
            break
    raise UnknownCommand(" ".join(words))


def run(command, call):
    try:
        return command.run(call)
    except UsageError as error:
        return usage(str(error))
