#!/usr/bin/python3
"""Stand-ins for the system bus: a private dbus-daemon (the test's DBUS_SYSTEM_BUS_ADDRESS)
on which systemd-logind and NetworkManager are played, as far as a desktop daemon follows
them, with their real names, objects, interfaces, signals and errors:

    org.freedesktop.login1  /org/freedesktop/login1  org.freedesktop.login1.Manager
        Inhibit(s what, s who, s why, s mode) -> h   a real file descriptor (a pipe's write
                                   end); the inhibitor lasts until every copy is closed
        ListInhibitors() -> a(ssssuu)
        signal PrepareForSleep(b)
        properties BlockInhibited, DelayInhibited (s), InhibitDelayMaxUSec (t),
                   PreparingForSleep (b), read with Get/GetAll; logind sends no
                   PropertiesChanged for them, and neither does this
    org.freedesktop.NetworkManager  /org/freedesktop/NetworkManager
        org.freedesktop.NetworkManager: state() -> u, CheckConnectivity() -> u,
        signal StateChanged(u); properties State, Connectivity (u), NetworkingEnabled (b),
        Metered (u), PrimaryConnection (o), Startup (b), Version (s), each change sent as
        org.freedesktop.DBus.Properties.PropertiesChanged, then StateChanged when State
        changed (NetworkManager's own order)

Tests drive them through a control API (JSON in, JSON out):

    GET  /_system/state      {"address", "logind": {...} | null, "network_manager": {...} | null}
    POST /_system/sleep      logind's suspend: PrepareForSleep(true), then it waits until
                             every delay inhibitor of "sleep" is released, at most
                             InhibitDelayMaxUSec, and "sleeps". Refused (409) while a block
                             inhibitor of "sleep" is held, as logind refuses.
                             -> {"waited": s, "delayed_by": [inhibitor], "timed_out": bool}
    POST /_system/resume     PrepareForSleep(false)
    POST /_system/network    {"steps": [{"state": u, "connectivity": u}, ...]}: each step
                             changes what it names, in order, with its signals
    GET  /_system/inhibitors/wait?held=N&released=N&timeout=S
                             waits until N inhibitors are held and N have been released
                             (all since the start): {"inhibitors": [...], "timed_out": bool}
    POST /_system/presence   {"logind": bool, "network_manager": bool}: a stand-in that leaves
                             drops its bus connection (its name vanishes, its inhibitors with
                             it); one that comes back owns its name again

An inhibitor is {"id", "what", "who", "why", "mode", "uid", "pid", "taken", "released"}
("taken" and "released": this process's CLOCK_MONOTONIC seconds; "released" null while held).

With NetworkManager following sleep (the default; --network-ignores-sleep turns it off), it
goes "asleep" (state 10, connectivity 1) once PrepareForSleep(true) is sent, and after
PrepareForSleep(false) it is "connecting" (40), then back where it was before, as the real
one reconnects; "resume" with {"network": "offline"} leaves it disconnected (20) instead.

Prints one JSON line, {"url": ..., "port": ...}, once the names are owned; stops when its
parent goes away, or on SIGTERM, and takes its dbus-daemon with it.
"""

import argparse
import http.server
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

import gi

gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib  # noqa: E402

from standin_server import ThreadedServer, send_json, stop_when_orphaned  # noqa: E402

MAX_WAIT = 120.0
BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:dir={directory}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"""

# NMState and NMConnectivityState.
NM_STATE_ASLEEP = 10
NM_STATE_DISCONNECTED = 20
NM_STATE_CONNECTING = 40
NM_STATE_CONNECTED_GLOBAL = 70
NM_CONNECTIVITY_NONE = 1
NM_CONNECTIVITY_FULL = 4

INHIBIT_WHATS = ("shutdown", "sleep", "idle", "handle-power-key", "handle-suspend-key",
                 "handle-hibernate-key", "handle-lid-switch", "handle-reboot-key")

LOGIND_XML = """
<node>
  <interface name="org.freedesktop.login1.Manager">
    <method name="Inhibit">
      <arg name="what" type="s" direction="in"/>
      <arg name="who" type="s" direction="in"/>
      <arg name="why" type="s" direction="in"/>
      <arg name="mode" type="s" direction="in"/>
      <arg name="pipe_fd" type="h" direction="out"/>
    </method>
    <method name="ListInhibitors">
      <arg name="inhibitors" type="a(ssssuu)" direction="out"/>
    </method>
    <signal name="PrepareForSleep"><arg name="start" type="b"/></signal>
    <property name="BlockInhibited" type="s" access="read">
      <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="false"/>
    </property>
    <property name="DelayInhibited" type="s" access="read">
      <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="false"/>
    </property>
    <property name="InhibitDelayMaxUSec" type="t" access="read">
      <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="const"/>
    </property>
    <property name="PreparingForSleep" type="b" access="read">
      <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="false"/>
    </property>
  </interface>
</node>
"""

NETWORK_MANAGER_XML = """
<node>
  <interface name="org.freedesktop.NetworkManager">
    <method name="state"><arg name="state" type="u" direction="out"/></method>
    <method name="CheckConnectivity"><arg name="connectivity" type="u" direction="out"/></method>
    <signal name="StateChanged"><arg name="state" type="u"/></signal>
    <property name="State" type="u" access="read"/>
    <property name="Connectivity" type="u" access="read"/>
    <property name="NetworkingEnabled" type="b" access="read"/>
    <property name="Metered" type="u" access="read"/>
    <property name="PrimaryConnection" type="o" access="read"/>
    <property name="Startup" type="b" access="read"/>
    <property name="Version" type="s" access="read"/>
  </interface>
</node>
"""


def log(message):
    print(message, file=sys.stderr, flush=True)


class Failure(Exception):
    """A control request that cannot be done: its HTTP status and the reason."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


class DBusFailure(Exception):
    """An error reply, named as the real service names it."""

    def __init__(self, name, message):
        super().__init__(message)
        self.name = name


class Service:
    """One stand-in on a bus connection of its own, so that it can leave and come back
    alone; its method calls and property reads run on the GLib main loop."""

    name = path = interface = xml = None

    def __init__(self, address, changed):
        self.address = address
        self.changed = changed
        self.connection = None
        self.info = Gio.DBusNodeInfo.new_for_xml(self.xml).interfaces[0]

    @property
    def present(self):
        return self.connection is not None

    def start(self):
        flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
        self.connection = Gio.DBusConnection.new_for_address_sync(self.address, flags, None, None)
        self.connection.register_object(self.path, self.info, self._method_call, self._get_property, None)
        reply = self.connection.call_sync(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "RequestName",
            GLib.Variant("(su)", (self.name, 4)), GLib.VariantType("(u)"), Gio.DBusCallFlags.NONE, -1, None)
        if reply.unpack()[0] != 1:
            raise RuntimeError(f"{self.name} is already owned")

    def stop(self):
        self.connection.close_sync(None)
        self.connection = None

    def emit(self, interface, member, signature, values):
        self.connection.emit_signal(None, self.path, interface, member, GLib.Variant(signature, values))

    def _method_call(self, connection, sender, path, interface, method, parameters, invocation):
        try:
            self.call(method, parameters.unpack(), sender, invocation)
        except DBusFailure as failure:
            invocation.return_dbus_error(failure.name, str(failure))
        self.changed()

    def _get_property(self, connection, sender, path, interface, name):
        return self.properties()[name]

    def bus_credentials(self, sender):
        def ask(member):
            return self.connection.call_sync(
                "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", member,
                GLib.Variant("(s)", (sender,)), GLib.VariantType("(u)"), Gio.DBusCallFlags.NONE, -1,
                None).unpack()[0]
        return ask("GetConnectionUnixUser"), ask("GetConnectionUnixProcessID")


class Logind(Service):
    name = "org.freedesktop.login1"
    path = "/org/freedesktop/login1"
    interface = "org.freedesktop.login1.Manager"
    xml = LOGIND_XML

    def __init__(self, address, changed, delay_max):
        super().__init__(address, changed)
        self.delay_max = delay_max
        self.inhibitors = []      # every one ever taken, in order
        self.watches = {}         # inhibitor id -> GLib source of its pipe's read end
        self.sleeping = False     # between PrepareForSleep(true) and (false)
        self.pending_sleep = None  # from PrepareForSleep(true) until "asleep"
        self.sleep_listeners = []  # called with True/False after each PrepareForSleep
        self.next_id = 1

    def stop(self):
        for inhibitor in self.held():
            self.release(inhibitor)
        super().stop()

    def held(self, mode=None, what=None):
        return [i for i in self.inhibitors if i["released"] is None
                and (mode is None or i["mode"] == mode)
                and (what is None or what in i["what"].split(":"))]

    def inhibited(self, mode):
        whats = []
        for inhibitor in self.held(mode):
            whats += [w for w in inhibitor["what"].split(":") if w not in whats]
        return ":".join(w for w in INHIBIT_WHATS if w in whats)

    def properties(self):
        return {
            "BlockInhibited": GLib.Variant("s", self.inhibited("block")),
            "DelayInhibited": GLib.Variant("s", self.inhibited("delay")),
            "InhibitDelayMaxUSec": GLib.Variant("t", int(self.delay_max * 1_000_000)),
            "PreparingForSleep": GLib.Variant("b", self.sleeping),
        }

    def call(self, method, arguments, sender, invocation):
        if method == "ListInhibitors":
            rows = [(i["what"], i["who"], i["why"], i["mode"], i["uid"], i["pid"]) for i in self.held()]
            invocation.return_value(GLib.Variant("(a(ssssuu))", (rows,)))
        elif method == "Inhibit":
            self.inhibit(*arguments, sender, invocation)

    def inhibit(self, what, who, why, mode, sender, invocation):
        # The checks and errors of systemd-logind's method_inhibit.
        whats = what.split(":")
        if not what or any(w not in INHIBIT_WHATS for w in whats):
            raise DBusFailure("org.freedesktop.DBus.Error.InvalidArgs", f"Invalid what specification {what}")
        if mode not in ("block", "delay"):
            raise DBusFailure("org.freedesktop.DBus.Error.InvalidArgs", f"Invalid mode specification {mode}")
        if mode == "delay" and any(w not in ("shutdown", "sleep") for w in whats):
            raise DBusFailure("org.freedesktop.DBus.Error.InvalidArgs",
                              "Delay inhibitors only supported for shutdown and sleep")
        if self.sleeping and "sleep" in whats:
            raise DBusFailure("org.freedesktop.login1.OperationInProgress",
                              "The operation inhibition has been requested for is already running")
        uid, pid = self.bus_credentials(sender)
        read_end, write_end = os.pipe2(os.O_CLOEXEC)
        inhibitor = {"id": self.next_id, "what": what, "who": who, "why": why, "mode": mode,
                     "uid": uid, "pid": pid, "taken": time.monotonic(), "released": None}
        self.next_id += 1
        self.inhibitors.append(inhibitor)
        # The caller holds the write end; once every copy of it is closed, the read end hangs up.
        self.watches[inhibitor["id"]] = (read_end, GLib.unix_fd_add_full(
            GLib.PRIORITY_DEFAULT, read_end, GLib.IOCondition.HUP | GLib.IOCondition.ERR,
            lambda *_: self.release(inhibitor) or GLib.SOURCE_REMOVE))
        fds = Gio.UnixFDList.new()
        fds.append(write_end)  # a copy
        os.close(write_end)
        invocation.return_value_with_unix_fd_list(GLib.Variant("(h)", (0,)), fds)
        log(f"inhibitor {inhibitor['id']} taken: {mode} {what} by {who!r} (pid {pid})")

    def release(self, inhibitor):
        if inhibitor["released"] is not None:
            return
        inhibitor["released"] = time.monotonic()
        read_end, source = self.watches.pop(inhibitor["id"])
        GLib.source_remove(source)
        os.close(read_end)
        log(f"inhibitor {inhibitor['id']} released after {inhibitor['released'] - inhibitor['taken']:.3f} s")
        self._sleep_when_released()
        self.changed()

    def begin_sleep(self, done):
        """logind's suspend: refused while a block inhibitor holds "sleep"; else PrepareForSleep
        (true), then done(result) once the delay inhibitors are gone or the limit is reached."""
        if self.sleeping:
            raise Failure(409, "already asleep")
        blockers = self.held("block", "sleep")
        if blockers:
            first = blockers[0]
            raise Failure(409, f"Operation inhibited by \"{first['who']}\" (PID {first['pid']}), "
                               f"reason is \"{first['why']}\".")
        self.sleeping = True
        self.pending_sleep = {"started": time.monotonic(), "done": done,
                              "delayed_by": [dict(i) for i in self.held("delay", "sleep")],
                              "timer": GLib.timeout_add(int(self.delay_max * 1000), self._delay_limit)}
        self.emit(self.interface, "PrepareForSleep", "(b)", (True,))
        for listener in self.sleep_listeners:
            listener(True)
        log(f"PrepareForSleep(true); {len(self.pending_sleep['delayed_by'])} delay inhibitor(s) held")
        self._sleep_when_released()

    def _delay_limit(self):
        self._fall_asleep(timed_out=True)
        return GLib.SOURCE_REMOVE

    def _sleep_when_released(self):
        if self.pending_sleep is not None and not self.held("delay", "sleep"):
            GLib.source_remove(self.pending_sleep["timer"])
            self._fall_asleep(timed_out=False)

    def _fall_asleep(self, timed_out):
        pending, self.pending_sleep = self.pending_sleep, None
        waited = time.monotonic() - pending["started"]
        log(f"asleep after {waited:.3f} s{' (delay limit reached)' if timed_out else ''}")
        pending["done"]({"waited": waited, "delayed_by": pending["delayed_by"], "timed_out": timed_out})

    def resume(self):
        if not self.sleeping or self.pending_sleep is not None:
            raise Failure(409, "not asleep")
        self.sleeping = False
        self.emit(self.interface, "PrepareForSleep", "(b)", (False,))
        for listener in self.sleep_listeners:
            listener(False)
        log("PrepareForSleep(false)")

    def state(self):
        return {"present": self.present, "preparing_for_sleep": self.sleeping,
                "inhibit_delay_max": self.delay_max, "inhibitors": self.inhibitors}


class NetworkManager(Service):
    name = "org.freedesktop.NetworkManager"
    path = "/org/freedesktop/NetworkManager"
    interface = "org.freedesktop.NetworkManager"
    xml = NETWORK_MANAGER_XML

    def __init__(self, address, changed, online):
        super().__init__(address, changed)
        self.values = {"State": NM_STATE_CONNECTED_GLOBAL if online else NM_STATE_DISCONNECTED,
                       "Connectivity": NM_CONNECTIVITY_FULL if online else NM_CONNECTIVITY_NONE}
        self.before_sleep = None

    def properties(self):
        connected = self.values["State"] >= 50
        return {
            "State": GLib.Variant("u", self.values["State"]),
            "Connectivity": GLib.Variant("u", self.values["Connectivity"]),
            "NetworkingEnabled": GLib.Variant("b", True),
            "Metered": GLib.Variant("u", 4 if connected else 0),  # NM_METERED_GUESS_NO, UNKNOWN
            "PrimaryConnection": GLib.Variant("o", "/org/freedesktop/NetworkManager/ActiveConnection/1"
                                              if connected else "/"),
            "Startup": GLib.Variant("b", False),
            "Version": GLib.Variant("s", "1.42.4"),
        }

    def call(self, method, arguments, sender, invocation):
        if method == "state":
            invocation.return_value(GLib.Variant("(u)", (self.values["State"],)))
        elif method == "CheckConnectivity":
            invocation.return_value(GLib.Variant("(u)", (self.values["Connectivity"],)))

    def step(self, state=None, connectivity=None):
        before = self.properties()
        if state is not None:
            self.values["State"] = state
        if connectivity is not None:
            self.values["Connectivity"] = connectivity
        after = self.properties()
        changed = {k: v for k, v in after.items() if v != before[k]}
        if not changed or not self.present:
            return
        self.emit("org.freedesktop.DBus.Properties", "PropertiesChanged", "(sa{sv}as)",
                  (self.interface, changed, []))
        if "State" in changed:
            self.emit(self.interface, "StateChanged", "(u)", (self.values["State"],))
        log(f"network: state {self.values['State']}, connectivity {self.values['Connectivity']}")

    def follow_sleep(self, sleeping, offline_after_resume=False):
        if sleeping:
            self.before_sleep = dict(self.values)
            self.step(NM_STATE_ASLEEP, NM_CONNECTIVITY_NONE)
        elif offline_after_resume:
            self.step(NM_STATE_DISCONNECTED, NM_CONNECTIVITY_NONE)
        else:
            self.step(NM_STATE_CONNECTING, NM_CONNECTIVITY_NONE)
            self.step(self.before_sleep["State"], self.before_sleep["Connectivity"])

    def state(self):
        return {"present": self.present, "state": self.values["State"],
                "connectivity": self.values["Connectivity"]}


class SystemBus:
    """The bus and its stand-ins; every method runs on the GLib main loop's thread."""

    def __init__(self, arguments):
        self.directory = tempfile.mkdtemp(prefix="system-bus-standin.")
        config = os.path.join(self.directory, "system.conf")
        with open(config, "w", encoding="utf-8") as file:
            file.write(BUS_CONFIG.format(directory=self.directory))
        self.daemon = subprocess.Popen(
            ["dbus-daemon", f"--config-file={config}", "--nofork", "--print-address=1"],
            stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
        self.address = self.daemon.stdout.readline().decode().strip()
        if not self.address:
            raise RuntimeError("dbus-daemon did not start")
        self.condition = threading.Condition()
        self.generation = 0  # counts changes, for the waits of the control API
        self.logind = Logind(self.address, self.changed, arguments.inhibit_delay_max)
        self.network = NetworkManager(self.address, self.changed, arguments.network == "online")
        self.network_follows_sleep = not arguments.network_ignores_sleep
        self.offline_after_resume = False
        self.logind.sleep_listeners.append(self._network_follows)
        if not arguments.no_logind:
            self.logind.start()
        if not arguments.no_network_manager:
            self.network.start()

    def _network_follows(self, sleeping):
        if self.network_follows_sleep and self.network.present:
            self.network.follow_sleep(sleeping, self.offline_after_resume)

    def changed(self):
        with self.condition:
            self.generation += 1
            self.condition.notify_all()

    def state(self):
        return {"address": self.address,
                "logind": self.logind.state() if self.logind.present else None,
                "network_manager": self.network.state() if self.network.present else None}

    def require(self, service, what):
        if not service.present:
            raise Failure(409, f"there is no {what} on the bus")

    def presence(self, logind=None, network_manager=None):
        for service, wanted in ((self.logind, logind), (self.network, network_manager)):
            if wanted is not None and wanted != service.present:
                service.start() if wanted else service.stop()
        self.changed()

    def inhibitors_wait_state(self, held, released):
        inhibitors = self.logind.inhibitors
        ready = (len([i for i in inhibitors if i["released"] is None]) >= held
                 and len([i for i in inhibitors if i["released"] is not None]) >= released)
        return ready, [dict(i) for i in inhibitors]

    def stop(self):
        self.daemon.terminate()
        self.daemon.wait(10)
        for name in os.listdir(self.directory):
            os.unlink(os.path.join(self.directory, name))
        os.rmdir(self.directory)


class MainLoopCalls:
    """Runs a function on the GLib main loop's thread and hands its result (or its Failure)
    back to the HTTP thread that asked."""

    @staticmethod
    def run(function):
        done = threading.Event()
        outcome = {}

        def call():
            try:
                outcome["value"] = function()
            except Failure as failure:
                outcome["failure"] = failure
            except Exception as error:  # a bug here must answer, not hang the test
                outcome["failure"] = Failure(500, f"{type(error).__name__}: {error}")
            done.set()
            return GLib.SOURCE_REMOVE

        GLib.idle_add(call)
        done.wait()
        if "failure" in outcome:
            raise outcome["failure"]
        return outcome["value"]

    @staticmethod
    def run_async(start):
        """start(done) begins work on the main loop that calls done(value) later."""
        done = threading.Event()
        outcome = {}

        def finish(value):
            outcome["value"] = value
            done.set()

        def call():
            try:
                start(finish)
            except Failure as failure:
                outcome["failure"] = failure
                done.set()
            return GLib.SOURCE_REMOVE

        GLib.idle_add(call)
        done.wait()
        if "failure" in outcome:
            raise outcome["failure"]
        return outcome["value"]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    bus = None  # set by main

    def log_message(self, format, *args):
        log(f"control: {format % args}")

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        if length == 0:
            return {}
        value = json.loads(self.rfile.read(length))
        if not isinstance(value, dict):
            raise Failure(400, "the body must be a JSON object")
        return value

    def do_GET(self):
        self.handle_request("GET")

    def do_POST(self):
        self.handle_request("POST")

    def handle_request(self, method):
        url = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(url.query))
        try:
            route = (method, url.path)
            if route == ("GET", "/_system/state"):
                value = MainLoopCalls.run(self.bus.state)
            elif route == ("POST", "/_system/sleep"):
                self.body()
                MainLoopCalls.run(lambda: self.bus.require(self.bus.logind, "logind"))
                value = MainLoopCalls.run_async(self.bus.logind.begin_sleep)
            elif route == ("POST", "/_system/resume"):
                body = self.body()

                def resume():
                    self.bus.require(self.bus.logind, "logind")
                    self.bus.offline_after_resume = body.get("network") == "offline"
                    self.bus.logind.resume()
                    return {}
                value = MainLoopCalls.run(resume)
            elif route == ("POST", "/_system/network"):
                steps = self.body().get("steps")
                if not isinstance(steps, list) or not all(isinstance(s, dict) for s in steps):
                    raise Failure(400, "steps must be a list of objects")

                def network():
                    self.bus.require(self.bus.network, "NetworkManager")
                    for step in steps:
                        self.bus.network.step(step.get("state"), step.get("connectivity"))
                    return self.bus.network.state()
                value = MainLoopCalls.run(network)
            elif route == ("POST", "/_system/presence"):
                body = self.body()
                MainLoopCalls.run(lambda: self.bus.presence(body.get("logind"), body.get("network_manager")))
                value = MainLoopCalls.run(self.bus.state)
            elif route == ("GET", "/_system/inhibitors/wait"):
                value = self.wait_for_inhibitors(int(query.get("held", 0)), int(query.get("released", 0)),
                                                 min(float(query.get("timeout", 10)), MAX_WAIT))
            else:
                raise Failure(404, f"no route {method} {url.path}")
            send_json(self, 200, value)
        except Failure as failure:
            send_json(self, failure.status, {"error": str(failure)})
        except (ValueError, KeyError) as error:
            send_json(self, 400, {"error": str(error)})

    def wait_for_inhibitors(self, held, released, timeout):
        """Checks on the main loop, then waits for the next change; the lock is never held
        across a main-loop call, which takes it itself to announce a change."""
        deadline = time.monotonic() + timeout
        bus = self.bus
        while True:
            with bus.condition:
                generation = bus.generation
            ready, inhibitors = MainLoopCalls.run(lambda: bus.inhibitors_wait_state(held, released))
            remaining = deadline - time.monotonic()
            if ready or remaining <= 0:
                return {"inhibitors": inhibitors, "timed_out": not ready}
            with bus.condition:
                bus.condition.wait_for(lambda: bus.generation != generation, remaining)


def parse_arguments(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--no-logind", action="store_true", help="no org.freedesktop.login1 on the bus")
    parser.add_argument("--no-network-manager", action="store_true",
                        help="no org.freedesktop.NetworkManager on the bus")
    parser.add_argument("--network", choices=("online", "offline"), default="online",
                        help="NetworkManager's state at the start (70/4 or 20/1)")
    parser.add_argument("--network-ignores-sleep", action="store_true",
                        help="NetworkManager stays as it is across sleep")
    parser.add_argument("--inhibit-delay-max", type=float, default=5.0,
                        help="logind's InhibitDelayMaxSec: the longest sleep waits for delay inhibitors")
    return parser.parse_args(argv)


def main(argv=None):
    arguments = parse_arguments(argv)
    bus = SystemBus(arguments)
    Handler.bus = bus
    server = ThreadedServer("127.0.0.1", arguments.port, Handler)
    loop = GLib.MainLoop()
    stop = threading.Event()
    # Python runs its own signal handlers only between bytecodes, never while GLib's loop waits.
    for number in (signal.SIGTERM, signal.SIGINT):
        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, number, lambda: stop.set() or GLib.SOURCE_REMOVE)
    threading.Thread(target=stop_when_orphaned, args=(stop,), daemon=True).start()

    def quit_when_stopped():
        stop.wait()
        GLib.idle_add(loop.quit)
    threading.Thread(target=quit_when_stopped, daemon=True).start()
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()
    print(json.dumps({"url": server.url, "port": server.server_address[1]}), flush=True)
    loop.run()
    server.shutdown()
    server.server_close()
    bus.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
