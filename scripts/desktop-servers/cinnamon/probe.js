// Test only: evaluated in a private Cinnamon by scripts/desktop-servers/cinnamon.sh through
// org.Cinnamon.Eval, once the shell serves org.freedesktop.Notifications. It defines
// globalThis.gbnotifyTest, which Eval calls (Tests/TestSupport/Rigs/Cinnamon.swift), and sends
// org.gbnotify.test.Cinnamon.Changed whenever the message tray updates its state, the
// notification daemon closes or invokes something, a Notify throws, or the pointer moves: tests
// wait on it. A Notify whose handler throws is never answered (gjs drops the invocation): the
// probe records each, so that a test can tell it from one merely slow. Cinnamon's banners are
// Clutter actors, not X windows: where they are is asked here, and a real pointer clicks there.
(function () {
    const { Clutter, Gio, GLib, St } = imports.gi;
    const Main = imports.ui.main;
    const probePath = '/org/gbnotify/test/Cinnamon';
    const probeInterface = 'org.gbnotify.test.Cinnamon';
    const daemon = Main.notificationDaemon;
    const tray = Main.messageTray;

    function serverId(notification) {
        for (const [id, ndata] of Object.entries(daemon._notifications)) {
            if (ndata.notification === notification)
                return Number(id);
        }
        return null;
    }

    function area(actor) {
        if (!actor || !actor.mapped)
            return null;
        const [x, y] = actor.get_transformed_position();
        const [width, height] = actor.get_transformed_size();
        return { x: Math.round(x), y: Math.round(y), width: Math.round(width), height: Math.round(height) };
    }

    // The body's label lives in the scroll area; a replacement with an empty body destroys the
    // area first, then throws on the label (URLHighlighter has no destroy()), which stays set.
    function bodyOf(notification) {
        return notification._scrollArea ? notification._bodyUrlHighlighter.actor.clutter_text.text : '';
    }

    // The dismiss button: the only button of the table whose child is the window-close icon.
    function closeButton(notification) {
        return notification._table.get_children().find(
            child => child instanceof St.Button && child.child instanceof St.Icon && child.child.icon_name === 'window-close');
    }

    function describe(id, ndata) {
        const notification = ndata.notification;
        const actions = [];
        for (let i = 0; i + 1 < ndata.actions.length; i += 2)
            actions.push({ key: ndata.actions[i], label: ndata.actions[i + 1] });
        return {
            id: Number(id),
            appName: ndata.appName,
            title: notification ? notification._titleLabel.clutter_text.text : ndata.summary,
            body: notification ? bodyOf(notification) : ndata.body,
            actions,
            urgency: notification ? notification.urgency : null,
            resident: notification ? notification.resident : false,
            source: notification ? notification.source.title : null,
            onBanner: notification !== null && notification !== undefined && tray._notification === notification,
            queued: notification ? tray._notificationQueue.includes(notification) : false,
        };
    }

    globalThis.gbnotifyTest = {
        // Everything the notification daemon holds, by id: on the banner, queued for it, or in
        // the panel's list once the banner hid.
        notifications() {
            return JSON.stringify(Object.entries(daemon._notifications)
                .map(([id, ndata]) => describe(id, ndata)).sort((a, b) => a.id - b.id));
        },

        // The banner on screen, or null; also null while the banner of a notification already
        // destroyed (closed, clicked) fades out, its actors gone.
        banner() {
            const notification = tray._notification;
            if (!notification || notification._destroyed)
                return JSON.stringify(null);
            const actionArea = notification._actionArea;
            const buttons = actionArea ? actionArea.get_children().map(
                button => ({ label: button.label ?? '', area: area(button) })) : [];
            return JSON.stringify({
                id: serverId(notification),
                title: notification._titleLabel.clutter_text.text,
                body: bodyOf(notification),
                area: area(notification.actor),
                bodyArea: area(notification._scrollArea ? notification._bodyUrlHighlighter.actor : notification._titleLabel),
                closeArea: area(closeButton(notification)),
                buttons,
                state: tray._notificationState,
                queued: tray._notificationQueue.length,
            });
        },

        // Every Notify whose handler threw, oldest first.
        thrownNotifies() {
            return JSON.stringify(thrown);
        },

        // Where Cinnamon last saw the pointer move to (null before any motion), and how many
        // presses of a pointer button it has seen: a click's press is sent only once its motion
        // has arrived here, and its release once the press has (St.Button takes a click whose
        // release comes with its press for no click).
        pointer() {
            return JSON.stringify({ at: pointer, presses });
        },
    };

    const thrown = [];
    const originalNotify = daemon.NotifyAsync;
    daemon.NotifyAsync = function (params, invocation) {
        try {
            return originalNotify.call(this, params, invocation);
        } catch (error) {
            const [, replacesId, , summary, body] = params;
            thrown.push({ replacesId, title: summary, body, error: String(error) });
            changed();
            throw error;
        }
    };

    let pointer = null;
    let presses = 0;
    global.stage.connect('captured-event', (stage, event) => {
        if (event.type() === Clutter.EventType.MOTION) {
            const [x, y] = event.get_coords();
            pointer = { x: Math.round(x), y: Math.round(y) };
            changed();
        } else if (event.type() === Clutter.EventType.BUTTON_PRESS) {
            presses += 1;
            changed();
        }
        return Clutter.EVENT_PROPAGATE;
    });

    let pending = 0;
    function changed() {
        if (pending)
            return;
        // On the next idle, once the tray has finished what it was doing.
        pending = GLib.idle_add(GLib.PRIORITY_DEFAULT, () => {
            pending = 0;
            Gio.DBus.session.emit_signal(null, probePath, probeInterface, 'Changed', null);
            return GLib.SOURCE_REMOVE;
        });
    }
    for (const [object, method] of [[tray, '_updateState'], [daemon, '_emitNotificationClosed'], [daemon, '_emitActionInvoked']]) {
        const original = object[method];
        object[method] = function (...args) {
            const result = original.apply(this, args);
            changed();
            return result;
        };
    }
    return true;
})()
