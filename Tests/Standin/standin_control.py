"""The /_standin/ control API: tests seed data, arm faults and read back requests.

A real gitbay has none of this. Each route is a function of (server, body,
query) returning a JSON value; a ModelError becomes {"error": ...}.
"""

import json
import urllib.parse

import standin_ssh
from standin_model import KINDS, ModelError

DEFAULT_WAIT_SECONDS = 10.0
MAX_WAIT_SECONDS = 120.0
MAX_BULK = 10000


def required(body, key):
    if key not in body:
        raise ModelError(f"{key} is required")
    return body[key]


def optional_bool(body, key, default):
    value = body.get(key, default)
    if not isinstance(value, bool):
        raise ModelError(f"{key} must be a boolean")
    return value


def query_number(query, key, default):
    values = urllib.parse.parse_qs(query).get(key)
    if not values:
        return default
    try:
        return float(values[0])
    except ValueError:
        raise ModelError(f"{key} must be a number") from None


def add_user(server, body, query):
    account = server.store.add_user(required(body, "username"), optional_bool(body, "admin", False),
                                    body.get("status"))
    return {"username": account.username, "admin": account.admin, "status": account.status}


def mint_token(server, body, query):
    username = required(body, "username")
    scope = body.get("scope", "full")
    token = server.store.mint_token(username, scope, body.get("token"), body.get("expires_in"),
                                    body.get("name"))
    return {"token": token, "username": username, "scope": scope}


def revoke_token(server, body, query):
    server.store.revoke_token(required(body, "token"))
    return {"ok": True}


def update_settings(server, body, query):
    changes = {key: value for key, value in body.items() if key != "username"}
    return server.store.update_settings(required(body, "username"), changes)


def add_notice(server, body, query):
    known = {"username", "repo", "kind", "actor", "summary", "path", "id", "read", "created_at"}
    unknown = sorted(set(body) - known)
    if unknown:
        raise ModelError("unknown keys: " + ", ".join(unknown))
    notice = server.store.add_notice(
        required(body, "username"), repo=body.get("repo", "krz/gitbay"),
        kind=body.get("kind", "issue"), actor=body.get("actor", "cmc"),
        summary=body.get("summary"), path=body.get("path"), notice_id=body.get("id"),
        read=optional_bool(body, "read", False), created_at=body.get("created_at"))
    # A repository the user muted files nothing.
    return {"id": None if notice is None else notice.id}


def add_notices(server, body, query):
    count = required(body, "count")
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_BULK:
        raise ModelError(f"count must be an integer 1..{MAX_BULK}")
    username, repo = required(body, "username"), body.get("repo", "krz/gitbay")
    store = server.store
    with store.lock:
        notices = [store.add_notice(username, repo=repo, kind=KINDS[i % len(KINDS)])
                   for i in range(count)]
    ids = [notice.id for notice in notices if notice is not None]
    return {"ids": ids}


def mark_read(server, body, query):
    username = required(body, "username")
    if optional_bool(body, "all", False):
        if "ids" in body:
            raise ModelError("give ids or all, not both")
        changed, _ = server.store.mark_read(username)
        return {"read": changed}
    ids = required(body, "ids")
    if not isinstance(ids, list) or not all(
            isinstance(i, int) and not isinstance(i, bool) for i in ids):
        raise ModelError("ids must be an array of integers")
    changed, _ = server.store.mark_read(username, ids)
    return {"read": changed}


def add_repository(server, body, query):
    repository = server.store.items.add_repository(required(body, "repo"), body.get("readers"),
                                                   body.get("archived", False))
    readers = None if repository.readers is None else sorted(repository.readers)
    return {"repo": repository.name, "readers": readers, "archived": repository.archived}


def add_item(server, body, query):
    unknown = sorted(set(body) - {"kind", "repo", "data"})
    if unknown:
        raise ModelError("unknown keys: " + ", ".join(unknown))
    number = server.store.items.add_item(required(body, "kind"), required(body, "repo"),
                                         required(body, "data"))
    return {"number": number}


def reap_device(server, body, query):
    if ("id" in body) == ("token" in body):
        raise ModelError("give id or token")
    server.store.reap_device(device_id=body.get("id"), token=body.get("token"))
    return {"ok": True}


def show_config(server, body, query):
    return dict(server.store.config)


def configure(server, body, query):
    return server.store.configure(body)


def advance_clock(server, body, query):
    return {"offset": server.store.advance_clock(required(body, "advance"))}


def add_fault(server, body, query):
    return {"id": server.faults.add(body)}


def list_faults(server, body, query):
    return {"faults": server.faults.listing()}


def clear_faults(server, body, query):
    server.faults.clear()
    server.ssh_faults.clear()
    return {"ok": True}


def list_requests(server, body, query):
    return {"requests": server.requests.listing(since=query_number(query, "since", 0))}


def wait_for_requests(server, body, query):
    count = query_number(query, "count", 1)
    timeout = min(query_number(query, "timeout", DEFAULT_WAIT_SECONDS), MAX_WAIT_SECONDS)
    entries, timed_out = server.requests.wait(count, timeout)
    return {"requests": entries, "timed_out": timed_out}


def clear_requests(server, body, query):
    server.requests.clear()
    return {"ok": True}


def ssh_command(server, body, query):
    username, key_scope, command = (required(body, key) for key in ("username", "key_scope", "command"))
    if not all(isinstance(value, str) for value in (username, key_scope, command)):
        raise ModelError("username, key_scope and command must be strings")
    return standin_ssh.answer(server, username, key_scope, command)


def add_ssh_fault(server, body, query):
    return {"id": server.ssh_faults.add(body)}


def ssh_log(server, body, query):
    return {"commands": server.ssh_faults.log()}


def state(server, body, query):
    return server.store.snapshot()


def reset(server, body, query):
    server.faults.clear()
    server.ssh_faults.reset()
    server.requests.clear()
    server.store.reset()
    return {"ok": True}


ROUTES = {
    ("POST", "/_standin/users"): add_user,
    ("POST", "/_standin/tokens"): mint_token,
    ("POST", "/_standin/tokens/revoke"): revoke_token,
    ("POST", "/_standin/settings"): update_settings,
    ("POST", "/_standin/notifications"): add_notice,
    ("POST", "/_standin/notifications/bulk"): add_notices,
    ("POST", "/_standin/notifications/mark-read"): mark_read,
    ("POST", "/_standin/devices/reap"): reap_device,
    ("POST", "/_standin/repos"): add_repository,
    ("POST", "/_standin/items"): add_item,
    ("GET", "/_standin/config"): show_config,
    ("POST", "/_standin/config"): configure,
    ("POST", "/_standin/clock"): advance_clock,
    ("POST", "/_standin/faults"): add_fault,
    ("GET", "/_standin/faults"): list_faults,
    ("POST", "/_standin/faults/clear"): clear_faults,
    ("GET", "/_standin/requests"): list_requests,
    ("GET", "/_standin/requests/wait"): wait_for_requests,
    ("POST", "/_standin/requests/clear"): clear_requests,
    ("POST", "/_standin/ssh"): ssh_command,
    ("POST", "/_standin/ssh/faults"): add_ssh_fault,
    ("GET", "/_standin/ssh/commands"): ssh_log,
    ("GET", "/_standin/state"): state,
    ("POST", "/_standin/reset"): reset,
}


def handle(server, method, path, query, body, too_big):
    """Returns (HTTP status, JSON value)."""
    route = ROUTES.get((method, path))
    if route is None:
        if any(route_path == path for _, route_path in ROUTES):
            return 405, {"error": f"{method} is not allowed on {path}"}
        return 404, {"error": f"no control route {path}"}
    if too_big:
        return 400, {"error": "body too large"}
    try:
        decoded = json.loads(body.decode("utf-8")) if body.strip() else {}
    except (ValueError, UnicodeDecodeError):
        return 400, {"error": "body must be JSON"}
    if not isinstance(decoded, dict):
        return 400, {"error": "body must be a JSON object"}
    try:
        return 200, route(server, decoded, query)
    except ModelError as error:
        return error.status, {"error": str(error)}
