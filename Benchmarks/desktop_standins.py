#!/usr/bin/python3
"""The desktop's side of the session for `soak` and `tray_cpu`: a notification server that a
benchmark can click, and a tray host. Run on Debian's python3 (python3-gi).

    desktop_standins.py [--notifications [--expire SECONDS]] [--tray]

--notifications  owns org.freedesktop.Notifications and answers every call at once. Each
                 `Notify` is written to standard output as a JSON line {"event": "notify", "id",
                 "replaces", "summary", "body", "actions"}, each `CloseNotification` as
                 {"event": "close", "id"}.
--expire         a notification not closed, clicked or replaced within SECONDS expires, as
                 dunst's and Plasma's popups do: NotificationClosed(ID, 1), {"event": "expired",
                 "id"}. Without it nothing expires.
--tray           owns org.kde.StatusNotifierWatcher and is its host: every item registered is
                 asked for its icon (`GetAll`, as Plasma's and Xfce's trays do) at once and after
                 each `NewIcon`; each answer is {"event": "icon", "item"}.

Commands, a line each on standard input:
    click ID ACTION   ActionInvoked(ID, ACTION), then NotificationClosed(ID, 2), as dunst does
                      for a click on an action; {"event": "clicked", "id", "action"} once both
                      are sent. A notification no longer shown (closed, or expired since the
                      command was written) cannot be clicked: {"event": "click-missed", "id",
                      "action"}, and nothing is sent
    close ID          NotificationClosed(ID, 2): the user dismissed it

The first line on standard output is {"ready": true}, once every name asked for is owned.
When standard input ends, it exits.
"""

import argparse
import json
import sys
import threading
import time

import gi

gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib  # noqa: E402

NOTIFICATIONS_XML = """
<node><interface name="org.freedesktop.Notifications">
  <method name="GetCapabilities"><arg type="as" direction="out"/></method>
  <method name="GetServerInformation">
    <arg type="s" direction="out"/><arg type="s" direction="out"/>
    <arg type="s" direction="out"/><arg type="s" direction="out"/>
  </method>
  <method name="Notify">
    <arg type="s" direction="in"/><arg type="u" direction="in"/><arg type="s" direction="in"/>
    <arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="as" direction="in"/>
    <arg type="a{sv}" direction="in"/><arg type="i" direction="in"/>
    <arg type="u" direction="out"/>
  </method>
  <method name="CloseNotification"><arg type="u" direction="in"/></method>
  <signal name="NotificationClosed"><arg type="u"/><arg type="u"/></signal>
  <signal name="ActionInvoked"><arg type="u"/><arg type="s"/></signal>
</interface></node>
"""

WATCHER_XML = """
<node><interface name="org.kde.StatusNotifierWatcher">
  <method name="RegisterStatusNotifierItem"><arg type="s" direction="in"/></method>
  <method name="RegisterStatusNotifierHost"><arg type="s" direction="in"/></method>
  <property name="RegisteredStatusNotifierItems" type="as" access="read"/>
  <property name="IsStatusNotifierHostRegistered" type="b" access="read"/>
  <property name="ProtocolVersion" type="i" access="read"/>
  <signal name="StatusNotifierItemRegistered"><arg type="s"/></signal>
  <signal name="StatusNotifierItemUnregistered"><arg type="s"/></signal>
  <signal name="StatusNotifierHostRegistered"/>
</interface></node>
"""

NOTIFICATIONS_PATH = "/org/freedesktop/Notifications"
NOTIFICATIONS = "org.freedesktop.Notifications"
WATCHER = "org.kde.StatusNotifierWatcher"
ITEM = "org.kde.StatusNotifierItem"

output_lock = threading.Lock()


def say(event):
    with output_lock:
        sys.stdout.write(json.dumps(event) + "\n")
        sys.stdout.flush()


class NotificationServer:
    def __init__(self, connection, expire):
        self.connection = connection
        self.expire = expire
        self.next_id = 1
        self.shown = {}  # id -> how many times it was shown: an expiry is for the last showing only
        info = Gio.DBusNodeInfo.new_for_xml(NOTIFICATIONS_XML)
        connection.register_object(NOTIFICATIONS_PATH, info.interfaces[0], self.call, None, None)

    def call(self, connection, sender, path, interface, method, parameters, invocation):
        if method == "GetCapabilities":
            invocation.return_value(GLib.Variant("(as)", (["actions", "body", "body-markup"],)))
        elif method == "GetServerInformation":
            invocation.return_value(GLib.Variant("(ssss)", ("desktop_standins", "gbnotify", "1", "1.2")))
        elif method == "Notify":
            _, replaces, _, summary, body, actions, _, _ = parameters.unpack()
            number = replaces or self.next_id
            if not replaces:
                self.next_id += 1
            invocation.return_value(GLib.Variant("(u)", (number,)))
            say({"event": "notify", "id": number, "replaces": replaces, "summary": summary, "body": body,
                 "actions": actions[0::2], "t": time.monotonic()})
            self.shown[number] = self.shown.get(number, 0) + 1
            if self.expire:
                showing = self.shown[number]
                GLib.timeout_add(int(self.expire * 1000), lambda: self.expired(number, showing))
        elif method == "CloseNotification":
            (number,) = parameters.unpack()
            invocation.return_value(None)
            if self.shown.pop(number, None) is not None:
                self.emit("NotificationClosed", GLib.Variant("(uu)", (number, 3)))
            say({"event": "close", "id": number})

    def expired(self, number, showing):
        if self.shown.get(number) == showing:
            del self.shown[number]
            self.emit("NotificationClosed", GLib.Variant("(uu)", (number, 1)))
            say({"event": "expired", "id": number})
        return False

    def emit(self, signal, arguments):
        self.connection.emit_signal(None, NOTIFICATIONS_PATH, NOTIFICATIONS, signal, arguments)

    def click(self, number, action):
        if self.shown.pop(number, None) is None:
            say({"event": "click-missed", "id": number, "action": action})
            return
        self.emit("ActionInvoked", GLib.Variant("(us)", (number, action)))
        self.emit("NotificationClosed", GLib.Variant("(uu)", (number, 2)))
        say({"event": "clicked", "id": number, "action": action})

    def dismiss(self, number):
        self.shown.pop(number, None)
        self.emit("NotificationClosed", GLib.Variant("(uu)", (number, 2)))


class TrayHost:
    """The watcher and its host in one, as kded5 and Xfce's panel are to an item."""

    def __init__(self, connection):
        self.connection = connection
        self.items = {}
        info = Gio.DBusNodeInfo.new_for_xml(WATCHER_XML)
        connection.register_object("/StatusNotifierWatcher", info.interfaces[0], self.call, self.get, None)
        connection.signal_subscribe(None, ITEM, "NewIcon", None, None, Gio.DBusSignalFlags.NONE, self.new_icon, None)

    def call(self, connection, sender, path, interface, method, parameters, invocation):
        if method == "RegisterStatusNotifierItem":
            (service,) = parameters.unpack()
            item_path = service if service.startswith("/") else "/StatusNotifierItem"
            self.items[sender] = item_path
            invocation.return_value(None)
            connection.emit_signal(None, "/StatusNotifierWatcher", WATCHER, "StatusNotifierItemRegistered",
                                   GLib.Variant("(s)", (sender + item_path,)))
            self.fetch(sender)
        else:
            invocation.return_value(None)

    def get(self, connection, sender, path, interface, name):
        if name == "RegisteredStatusNotifierItems":
            return GLib.Variant("as", [owner + path for owner, path in self.items.items()])
        if name == "IsStatusNotifierHostRegistered":
            return GLib.Variant("b", True)
        return GLib.Variant("i", 0)

    def new_icon(self, connection, sender, path, interface, signal, parameters, data):
        if sender in self.items:
            self.fetch(sender)

    def fetch(self, owner):
        def answered(connection, result):
            try:
                connection.call_finish(result)
                say({"event": "icon", "item": owner})
            except GLib.Error as error:
                say({"event": "icon_error", "item": owner, "error": error.message})

        self.connection.call(owner, self.items[owner], "org.freedesktop.DBus.Properties", "GetAll",
                             GLib.Variant("(s)", (ITEM,)), None, Gio.DBusCallFlags.NONE, 10000, None, answered)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--notifications", action="store_true")
    parser.add_argument("--expire", type=float)
    parser.add_argument("--tray", action="store_true")
    arguments = parser.parse_args()

    connection = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    loop = GLib.MainLoop()
    names = ([NOTIFICATIONS] if arguments.notifications else []) + ([WATCHER] if arguments.tray else [])
    server = NotificationServer(connection, arguments.expire) if arguments.notifications else None
    if arguments.tray:
        TrayHost(connection)
    owned = set()

    def acquired(connection, name):
        owned.add(name)
        if owned == set(names):
            say({"ready": True})

    def lost(connection, name):
        say({"event": "lost", "name": name})
        loop.quit()

    for name in names:
        Gio.bus_own_name_on_connection(connection, name, Gio.BusNameOwnerFlags.DO_NOT_QUEUE, acquired, lost)

    def commands():
        for line in sys.stdin:
            words = line.split()
            if len(words) == 3 and words[0] == "click" and server:
                GLib.idle_add(lambda n=int(words[1]), a=words[2]: server.click(n, a) and False)
            elif len(words) == 2 and words[0] == "close" and server:
                GLib.idle_add(lambda n=int(words[1]): server.dismiss(n) and False)
        GLib.idle_add(loop.quit)

    threading.Thread(target=commands, daemon=True).start()
    loop.run()


if __name__ == "__main__":
    main()
