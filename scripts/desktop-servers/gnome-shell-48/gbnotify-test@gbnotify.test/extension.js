// Test only (scripts/desktop-servers/gnome-shell.sh installs it in a private session with
// --debian13): GNOME Shell 48's port of ../../gnome-shell/gbnotify-test@gbnotify.test, the same
// probe for Tests/TestSupport/Rigs/GnomeShell.swift with the same answers. What 48 changed: an
// extension is an ES module; there is still no --unsafe-mode flag, so this sets unsafe mode; the
// daemon's notifications are a Map of MessageTray.Notification objects that no longer keep what
// Notify sent (the app name, the action keys, the hints), so this records them as each Notify
// comes, by the id the daemon gives; the banner keeps its body label in _bodyLabel; bodies are
// repaired by Util.fixMarkup.
import Clutter from 'gi://Clutter';
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import Pango from 'gi://Pango';

import * as Main from 'resource:///org/gnome/shell/ui/main.js';
import * as NotificationDaemon from 'resource:///org/gnome/shell/ui/notificationDaemon.js';
import * as Util from 'resource:///org/gnome/shell/misc/util.js';
import {Extension} from 'resource:///org/gnome/shell/extensions/extension.js';

const readyName = 'org.gbnotify.test.GnomeShell';
const probePath = '/org/gbnotify/test/GnomeShell';

function fdoDaemon() {
    return Main.notificationDaemon._fdoNotificationDaemon;
}

// What each Notify sent, by the id it got: { appName, actions (keys and labels, flat), hints }.
const sent = new Map();

// The notification's server id, or null for one that did not come through Notify.
function serverId(notification) {
    for (const [id, held] of fdoDaemon()._notifications) {
        if (held === notification)
            return id;
    }
    return null;
}

// What a label shows for the body: GNOME's own markup repair, then Pango's parse.
function renderedBody(notification) {
    const markup = Util.fixMarkup(notification.body ?? '', notification.useBodyMarkup);
    return Pango.parse_markup(markup, -1, '')[2];
}

function iconName(gicon) {
    return gicon ? gicon.to_string() : null;
}

function describe(source, notification) {
    const id = serverId(notification);
    const notify = id === null ? null : sent.get(id) ?? null;
    const actions = [];
    if (notify) {
        for (let i = 0; i + 1 < notify.actions.length; i += 2)
            actions.push({key: notify.actions[i], label: notify.actions[i + 1]});
    } else {
        notification.actions.forEach(a => actions.push({key: null, label: a.label}));
    }
    return {
        id,
        appName: notify ? notify.appName : null,
        source: source.title,
        sourceApp: source.app ? source.app.get_id() : null,
        fromNotify: source instanceof NotificationDaemon.FdoNotificationDaemonSource,
        icon: iconName(notification.gicon),
        sourceIcon: iconName(source.app ? source.app.get_icon() : source.icon),
        title: notification.title,
        body: renderedBody(notification),
        bodyMarkup: notification.body ?? '',
        markup: notification.useBodyMarkup,
        urgency: notification.urgency,
        resident: notification.resident,
        transient: notification.isTransient,
        acknowledged: notification.acknowledged,
        desktopEntry: notify ? notify.hints['desktop-entry'] ?? null : null,
        actions,
    };
}

function allNotifications() {
    const found = [];
    for (const source of Main.messageTray.getSources()) {
        for (const notification of source.notifications)
            found.push([source, notification]);
    }
    return found;
}

function find(id) {
    const found = allNotifications().find(([, n]) => serverId(n) === id);
    if (!found)
        throw new Error(`no notification with id ${id}`);
    return found[1];
}

function banner() {
    return Main.messageTray._banner;
}

// Where the actor is on screen; null while it is not: not shown (a button of a banner not
// expanded), or shown but not laid out yet (its position is then NaN).
function area(actor) {
    if (!actor.is_mapped() || !actor.has_allocation())
        return null;
    const [x, y] = actor.get_transformed_position();
    const [width, height] = actor.get_transformed_size();
    if (![x, y, width, height].every(Number.isFinite))
        return null;
    return {x: Math.round(x), y: Math.round(y), width: Math.round(width), height: Math.round(height)};
}

function bannerButtonActors(b) {
    return b._buttonBox ? b._buttonBox.get_children() : [];
}

// Real pointer events through Clutter's input pipeline, from one virtual pointer.
let virtualPointer = null;

function pointer() {
    if (!virtualPointer) {
        const seat = Clutter.get_default_backend().get_default_seat();
        virtualPointer = seat.create_virtual_device(Clutter.InputDeviceType.POINTER_DEVICE);
    }
    return virtualPointer;
}

function pointerMove(x, y) {
    pointer().notify_absolute_motion(GLib.get_monotonic_time(), x, y);
    return {x, y};
}

function pointerClick(x, y) {
    const now = GLib.get_monotonic_time();
    pointer().notify_absolute_motion(now, x, y);
    pointer().notify_button(now + 10000, Clutter.BUTTON_PRIMARY, Clutter.ButtonState.PRESSED);
    pointer().notify_button(now + 20000, Clutter.BUTTON_PRIMARY, Clutter.ButtonState.RELEASED);
    return {x, y};
}

// Runs `attempt` now and after each painted frame until it returns true: what it looks at is
// then laid out as drawn, never mid-layout.
function untilDone(attempt) {
    if (attempt())
        return;
    const painted = global.stage.connect('after-paint', () => {
        if (attempt())
            global.stage.disconnect(painted);
        else
            global.stage.queue_redraw();
    });
    global.stage.queue_redraw();
}

const probe = {
    // The shell's own modules, for the rigs' other probes (TrayHost's of the AppIndicator
    // extension), which reach them the same way on 43 and 48: Eval has no imports.ui on 48.
    main: Main,
    Clutter,
    GLib,

    // Every notification the message tray holds, source by source, oldest first.
    notifications() {
        return JSON.stringify(allNotifications().map(([s, n]) => describe(s, n)));
    },

    // The banner on screen now, or null.
    banner() {
        const b = banner();
        if (!b)
            return JSON.stringify(null);
        return JSON.stringify({
            id: serverId(b.notification),
            title: b.titleLabel.get_text(),
            body: b._bodyLabel.clutter_text.get_text(),
            expanded: b.expanded,
            area: area(b),
            buttons: bannerButtonActors(b).map(button => ({label: button.label, area: area(button)})),
            state: Main.messageTray._notificationState,
            queued: Main.messageTray.queueCount,
        });
    },

    // What a click on the banner or list entry runs: Notification.activate().
    activate(id) {
        find(id).activate();
        return JSON.stringify(true);
    },

    // Emits 'clicked' on the action button labelled `label` of the banner showing `id`: its own
    // handler runs (the action, then the banner closes unless resident).
    pressButton(id, label) {
        const b = banner();
        if (!b || serverId(b.notification) !== id)
            throw new Error(`notification ${id} is not on the banner`);
        const button = bannerButtonActors(b).find(child => child.label === label);
        if (!button)
            throw new Error(`the banner has no button "${label}"`);
        button.emit('clicked', Clutter.BUTTON_PRIMARY);
        return JSON.stringify(true);
    },

    // A real pointer click on the banner showing `id` (in the upper part of its body, clear of
    // its buttons) or on its button `label`, once what is to be clicked is what the pointer
    // would hit there: checked after each painted frame, so never mid-layout. Returns at once;
    // the signal Clicked(x, y) follows the click.
    pointerClickWhenReady(id, label) {
        const attempt = () => {
            const b = banner();
            if (!b || serverId(b.notification) !== id)
                return false;
            const target = label === null ? b : bannerButtonActors(b).find(child => child.label === label);
            const where = target ? area(target) : null;
            if (!where)
                return false;
            const x = where.x + Math.floor(where.width / 2);
            const y = where.y + Math.floor(label === null ? where.height / 4 : where.height / 2);
            const hit = global.stage.get_actor_at_pos(Clutter.PickMode.REACTIVE, x, y);
            if (!hit || !target.contains(hit))
                return false;
            pointerClick(x, y);
            Gio.DBus.session.emit_signal(null, probePath, readyName, 'Clicked', new GLib.Variant('(ii)', [x, y]));
            return true;
        };
        untilDone(attempt);
        return JSON.stringify(true);
    },

    // Once the banner of `id` (or, with `id` null, one whose title starts with `prefix`) is
    // shown, the pointer moves off the banners, then onto it, in the frame it is first painted
    // there: the shell then keeps it on screen and expands it (it does so only for a pointer that
    // comes in, not for one resting where a banner appears). Unheld, it hides 4 s after it
    // showed once the user is active. Returns at once.
    holdBanner(id, prefix) {
        untilDone(() => {
            const b = banner();
            if (!b || Main.messageTray._notificationState !== 2)
                return false;
            if (id !== null ? serverId(b.notification) !== id : !b.titleLabel.get_text().startsWith(prefix))
                return false;
            const where = area(b);
            if (!where)
                return false;
            // The bottom middle of the screen: no banner, no hot corner there.
            pointerMove(Math.floor(global.stage.width / 2), global.stage.height - 10);
            pointerMove(where.x + Math.floor(where.width / 2), where.y + Math.floor(where.height / 2));
            return true;
        });
        return JSON.stringify(true);
    },

    // The pointer moves to (x, y) in stage coordinates.
    pointerMove(x, y) {
        return JSON.stringify(pointerMove(x, y));
    },

    // A real pointer click at (x, y): motion, press, release.
    pointerClick(x, y) {
        return JSON.stringify(pointerClick(x, y));
    },

    // Drops every notification the tray holds (reason 2, dismissed), and every source with it.
    clear() {
        Main.messageTray.getSources().forEach(source => source.destroy());
        return JSON.stringify(true);
    },
};

function announceChange() {
    Gio.DBus.session.emit_signal(null, probePath, readyName, 'Changed', null);
}

function isShellOwn(source) {
    return !(source instanceof NotificationDaemon.FdoNotificationDaemonSource);
}

export default class GbnotifyTestExtension extends Extension {
    enable() {
        global.context.unsafe_mode = true;
        globalThis.gbnotifyTest = probe;
        this._recordNotifies();
        if (Main.layoutManager._startingUp)
            this._startupHandler = Main.layoutManager.connect('startup-complete', () => this._becomeReady());
        else
            this._becomeReady();
    }

    disable() {
        if (this._startupHandler)
            Main.layoutManager.disconnect(this._startupHandler);
        if (this._sourceAddedHandler)
            Main.messageTray.disconnect(this._sourceAddedHandler);
        if (this._originalUpdateState)
            Main.messageTray._updateState = this._originalUpdateState;
        if (this._originalNotify)
            fdoDaemon().NotifyAsync = this._originalNotify;
        if (this._readyOwner)
            Gio.bus_unown_name(this._readyOwner);
        this._startupHandler = this._sourceAddedHandler = this._readyOwner = 0;
        this._originalUpdateState = this._originalNotify = null;
        sent.clear();
        delete globalThis.gbnotifyTest;
        global.context.unsafe_mode = false;
    }

    // The exported object looks NotifyAsync up at each call, so a wrapper sees every Notify.
    // The id is the one the daemon is about to give: the replaced one while it still holds it,
    // else its next.
    _recordNotifies() {
        const daemon = fdoDaemon();
        const original = daemon.NotifyAsync;
        this._originalNotify = original;
        daemon.NotifyAsync = function (params, invocation) {
            const [appName, replacesId, , , , actions, hints] = params;
            const id = replacesId !== 0 && this._notifications.has(replacesId) ? replacesId : this._nextNotificationId;
            const entry = hints['desktop-entry'];
            sent.set(id, {
                appName,
                actions,
                hints: {'desktop-entry': entry === undefined ? undefined : entry.deepUnpack()},
            });
            return original.call(this, params, invocation);
        };
    }

    _becomeReady() {
        Main.overview.hide();
        Main.messageTray.getSources().filter(isShellOwn).forEach(source => source.destroy());
        // On the next idle: the source is added before its first notification is shown.
        this._sourceAddedHandler = Main.messageTray.connect('source-added', (tray, source) => {
            if (isShellOwn(source))
                GLib.idle_add(GLib.PRIORITY_DEFAULT, () => source.destroy() ?? GLib.SOURCE_REMOVE);
        });
        const original = Main.messageTray._updateState;
        this._originalUpdateState = original;
        Main.messageTray._updateState = function () {
            original.call(this);
            announceChange();
        };
        this._readyOwner = Gio.bus_own_name(Gio.BusType.SESSION, readyName, Gio.BusNameOwnerFlags.NONE, null, null, null);
    }
}
