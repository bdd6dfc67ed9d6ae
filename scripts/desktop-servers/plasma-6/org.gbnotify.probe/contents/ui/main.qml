// Test only (scripts/desktop-servers/plasma.sh adds it to the desktop of a private session with
// --debian13): Plasma 6's port of ../../plasma/org.gbnotify.probe, the same probe for
// Tests/TestSupport/Rigs/PlasmaShell.swift with the same answers. What Plasma 6 changed: the
// root is a PlasmoidItem, the "executable" data engine comes from plasma5support, and imports
// carry no versions.
import QtQuick
import org.kde.plasma.plasmoid
import org.kde.plasma.plasma5support as P5Support
import org.kde.notificationmanager as NotificationManager

PlasmoidItem {
    id: probe

    readonly property string fifos: '"$XDG_RUNTIME_DIR/gbnotify-probe'
    // `timeout`: a reader or writer whose peer went away (the test process, the session) ends
    // by itself rather than outliving plasmashell.
    readonly property string readRequest: "timeout 30 sh -c 'IFS= read -r line < " + fifos + "/requests\" && printf %s \"$line\"'"
    property int commands: 0

    NotificationManager.Notifications {
        id: held
        showExpired: true
        showDismissed: true
        showJobs: false
        groupMode: NotificationManager.Notifications.GroupDisabled
        sortMode: NotificationManager.Notifications.SortByDate
        sortOrder: Qt.AscendingOrder
    }

    // Renders a body as the popup's rich-text label does, to read it back as plain text.
    TextEdit {
        id: renderer
        visible: false
        textFormat: TextEdit.RichText
    }

    P5Support.DataSource {
        id: executable
        engine: "executable"
        onNewData: (sourceName, data) => {
            disconnectSource(sourceName);
            if (sourceName.startsWith(probe.readRequest)) {
                if (data["exit code"] === 0)
                    probe.handle(data["stdout"]);
                probe.listen();
            }
        }
    }

    // A counter in a shell comment makes every command a new data source.
    function run(command) {
        commands += 1;
        executable.connectSource(command + " # " + commands);
    }

    function listen() {
        run(readRequest);
    }

    function reply(answer) {
        run("timeout 30 sh -c 'printf %s " + Qt.btoa(JSON.stringify(answer)) + " | base64 -d > " + fifos + "/responses\"'");
    }

    function role(row, name) {
        return held.data(held.index(row, 0), NotificationManager.Notifications[name + "Role"]);
    }

    // Line and paragraph separators as newlines; none at the end (the sanitised body ends in one).
    function rendered(html) {
        renderer.text = html;
        return renderer.getText(0, renderer.length).replace(/[\u2028\u2029]/g, "\n").replace(/\s+$/, "");
    }

    function notification(row) {
        const names = role(row, "ActionNames") || [];
        const labels = role(row, "ActionLabels") || [];
        const actions = [];
        if (role(row, "HasDefaultAction"))
            actions.push({key: "default", label: role(row, "DefaultActionLabel") || ""});
        for (let i = 0; i < names.length; ++i)
            actions.push({key: names[i], label: labels[i] || ""});
        const created = role(row, "Created");
        const updated = role(row, "Updated");
        return {
            id: role(row, "Id"),
            appName: role(row, "ApplicationName") || "",
            appIcon: role(row, "ApplicationIconName") || null,
            icon: role(row, "IconName") || null,
            // Plasma loads an app_icon that names a file into the image (and leaves IconName
            // empty); the model answers nothing for no image, as the applet's `image || iconName`.
            hasImage: !!role(row, "Image"),
            desktopEntry: role(row, "DesktopEntry") || null,
            originName: role(row, "OriginName") || null,
            title: role(row, "Summary") || "",
            body: rendered(role(row, "Body") || ""),
            bodyMarkup: role(row, "Body") || "",
            actions: actions,
            urgency: role(row, "Urgency"),
            timeout: role(row, "Timeout"),
            expired: !!role(row, "Expired"),
            dismissed: !!role(row, "Dismissed"),
            read: !!role(row, "Read"),
            resident: !!role(row, "Resident"),
            transient: !!role(row, "Transient"),
            // The text field of the inline-reply action, as the popup draws it.
            hasReplyAction: !!role(row, "HasReplyAction"),
            replyPlaceholder: role(row, "ReplyPlaceholderText") || null,
            replySubmitLabel: role(row, "ReplySubmitButtonText") || null,
            created: created ? created.getTime() : null,
            updated: updated ? updated.getTime() : null,
        };
    }

    function rowOf(id) {
        for (let row = 0; row < held.count; ++row) {
            if (role(row, "Id") === id)
                return row;
        }
        throw new Error("no notification with id " + id);
    }

    // Invoke behaviour as the popup's own handlers choose it (Globals.qml): close unless resident.
    function behavior(row) {
        return role(row, "Resident") ? NotificationManager.Notifications.None : NotificationManager.Notifications.Close;
    }

    function badge(launcherUrl) {
        const item = Qt.createQmlObject("import org.kde.plasma.private.taskmanager as T; T.SmartLauncherItem {}", probe);
        item.launcherUrl = launcherUrl;
        const found = {count: item.count, countVisible: item.countVisible, progress: item.progress,
                       progressVisible: item.progressVisible, urgent: item.urgent};
        item.destroy();
        return found;
    }

    function handle(line) {
        let request;
        try {
            request = JSON.parse(line);
        } catch (error) {
            return reply({seq: -1, error: "not JSON: " + line});
        }
        const result = {seq: request.seq};
        try {
            switch (request.op) {
            case "ping":
                break;
            case "notifications":
                result.notifications = [];
                for (let row = 0; row < held.count; ++row)
                    result.notifications.push(notification(row));
                break;
            case "activate": {
                // What a click on the popup runs.
                const row = rowOf(request.id);
                held.invokeDefaultAction(held.index(row, 0), behavior(row));
                break;
            }
            case "invokeAction": {
                // What a click on the popup's button runs.
                const row = rowOf(request.id);
                held.invokeAction(held.index(row, 0), request.action, behavior(row));
                break;
            }
            case "replyInline": {
                // What the popup's text field runs when its text is sent: NotificationReplied.
                const row = rowOf(request.id);
                held.reply(held.index(row, 0), request.text, behavior(row));
                break;
            }
            case "badge":
                result.badge = badge(request.launcher);
                break;
            default:
                throw new Error("unknown op " + request.op);
            }
        } catch (error) {
            result.error = String(error);
        }
        reply(result);
    }

    Component.onCompleted: listen()
}
