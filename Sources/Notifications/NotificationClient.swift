internal import CNotify

/// The desktop's notification server, through libnotify: notifications shown, replaced in
/// place, closed, and what the server says about them (actions, closings), as Swift values.
///
/// Every libnotify call runs on one thread of the client's own (`GLibLoop`), where its
/// callbacks arrive too. A `NotifyNotification` is kept per notification on screen, by the
/// server's id: showing again with that id updates it in place; an id this process never showed
/// (one an earlier gbnotifyd left on screen) gets a new object with that id, so showing it
/// replaces the old notification. libnotify's state is global: every client of a process shares
/// its loop thread and app name (a daemon has one client; tests make one per test).
public final class NotificationClient: Sendable {
    public enum Event: Sendable, Equatable {
        /// An action was invoked: `default` is a click on the body. The activation token is the
        /// one the server sent with it, if any (for the program the click starts).
        case action(id: UInt32, key: String, activationToken: String?)
        /// The notification is gone; reason 1 expired, 2 dismissed, 3 closed by a call, 4
        /// undefined (the freedesktop specification's numbers).
        case closed(id: UInt32, reason: UInt32)
    }

    /// What the server calls itself (`GetServerInformation`).
    public struct ServerInformation: Sendable, Equatable {
        public let name: String
        public let vendor: String
        public let version: String
    }

    public let events: AsyncStream<Event>
    private let loop: GLibLoop
    private let state: LoopState

    /// Starts the loop's thread and initialises libnotify with `appName`, the `app_name` of
    /// every notification.
    public init(appName: String) throws(NotificationError) {
        guard let loop = GLibLoop.shared else {
            throw NotificationError(name: nil, message: "cannot start a thread for the notification client")
        }
        guard notify_init(appName) != 0 else {
            throw NotificationError(name: nil, message: "libnotify would not initialise")
        }
        // GLib's shared session-bus connection (libnotify's, and libsecret's) raises SIGTERM
        // when the bus goes away; the daemon watches the bus itself and decides what that means.
        // The reference is kept for the life of the process: were the connection let go, the
        // next one would be made with the default again.
        var error: UnsafeMutablePointer<GError>?
        guard let bus = g_bus_get_sync(G_BUS_TYPE_SESSION, nil, &error) else {
            throw NotificationError(taking: error)
        }
        g_dbus_connection_set_exit_on_close(bus, 0)
        let (events, continuation) = AsyncStream.makeStream(of: Event.self)
        self.events = events
        self.loop = loop
        state = LoopState(events: continuation)
    }

    /// The capability names the server advertises; nil when no server answers.
    public func serverCapabilities() async -> [String]? {
        await loop.run {
            guard let list = notify_get_server_caps() else { return nil }
            defer { g_list_free_full(list, g_free) }
            var names: [String] = []
            var node: UnsafeMutablePointer<GList>? = list
            while let current = node {
                if let name = current.pointee.data { names.append(String(cString: name.assumingMemoryBound(to: CChar.self))) }
                node = current.pointee.next
            }
            return names
        }
    }

    /// The server's name, vendor and version; nil when no server answers.
    public func serverInformation() async -> ServerInformation? {
        await loop.run {
            var name: UnsafeMutablePointer<CChar>?
            var vendor: UnsafeMutablePointer<CChar>?
            var version: UnsafeMutablePointer<CChar>?
            var specVersion: UnsafeMutablePointer<CChar>?
            guard notify_get_server_info(&name, &vendor, &version, &specVersion) != 0 else { return nil }
            defer {
                g_free(name)
                g_free(vendor)
                g_free(version)
                g_free(specVersion)
            }
            return ServerInformation(
                name: name.map { String(cString: $0) } ?? "", vendor: vendor.map { String(cString: $0) } ?? "",
                version: version.map { String(cString: $0) } ?? "")
        }
    }

    /// Shows `notification`, in place of the notification `replacing` when given (one of ours,
    /// or one an earlier process showed); returns the server's id for it, which a server that
    /// no longer had `replacing` may have chosen anew.
    public func show(_ notification: Notification, replacing: UInt32? = nil) async throws(NotificationError) -> UInt32 {
        let state = state
        let result = await loop.run { () -> Result<UInt32, NotificationError> in
            state.show(notification, replacing: replacing)
        }
        return try result.get()
    }

    /// Withdraws a notification; one the server already closed is no error to it.
    public func close(_ id: UInt32) async throws(NotificationError) {
        let state = state
        try await loop.run { state.close(id) }.get()
    }

    /// Forgets every notification without a call: the server that showed them is gone, and its
    /// ids would mean other notifications to the next one.
    public func forgetAll() async {
        let state = state
        await loop.run { state.forgetAll() }
    }
}

/// One notification as libnotify sends it.
public struct Notification: Sendable, Equatable {
    public struct Action: Sendable, Equatable {
        public let key: String
        public let label: String

        public init(key: String, label: String) {
            self.key = key
            self.label = label
        }
    }

    public enum Urgency: Sendable {
        case low, normal, critical
    }

    public var summary: String
    public var body: String
    /// `app_icon`: an icon name from the theme, or a `file://` URI.
    public var icon: String
    public var actions: [Action]
    /// The `desktop-entry` hint: the desktop entry's name without `.desktop`.
    public var desktopEntry: String?
    /// The `category` hint, such as `x-gitbay.issue`.
    public var category: String?
    public var urgency: Urgency

    public init(
        summary: String, body: String, icon: String, actions: [Action], desktopEntry: String?, category: String?,
        urgency: Urgency
    ) {
        self.summary = summary
        self.body = body
        self.icon = icon
        self.actions = actions
        self.desktopEntry = desktopEntry
        self.category = category
        self.urgency = urgency
    }
}

/// A libnotify call that failed: the D-Bus error's name when the server (or the bus) sent one,
/// and its message.
public struct NotificationError: Error, Sendable, Equatable, CustomStringConvertible {
    public let name: String?
    public let message: String

    public var description: String { name.map { "\($0): \(message)" } ?? message }

    /// No notification server on the bus (and none that D-Bus could start).
    public var meansNoServer: Bool {
        guard let name else { return false }
        return [
            "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
            "org.freedesktop.DBus.Error.NoServer",
        ].contains(name)
    }

    /// The server refused it as one too many alike: Plasma refuses a Notify whose app, summary
    /// and body equal the last one's within a second. The same call a moment later goes through.
    public var meansTooSoon: Bool {
        name == "org.freedesktop.Notifications.Error.ExcessNotificationGeneration"
    }

    /// Takes and frees `error`.
    init(taking error: UnsafeMutablePointer<GError>?) {
        guard let error else {
            self.init(name: nil, message: "the notification server refused without saying why")
            return
        }
        defer { g_error_free(error) }
        let remote = g_dbus_error_get_remote_error(error)
        defer { g_free(remote) }
        if remote != nil { g_dbus_error_strip_remote_error(error) }
        self.init(name: remote.map { String(cString: $0) }, message: error.pointee.message.map { String(cString: $0) } ?? "")
    }

    init(name: String?, message: String) {
        self.name = name
        self.message = message
    }
}

/// Everything that lives on the loop's thread: the notifications on screen, and where events
/// go. Touched only there, by the jobs and callbacks the loop runs one at a time.
private final class LoopState: @unchecked Sendable {
    private let events: AsyncStream<NotificationClient.Event>.Continuation
    /// Our `NotifyNotification`s by the server's id, each holding one reference.
    private var live: [UInt32: UnsafeMutablePointer<NotifyNotification>] = [:]

    init(events: AsyncStream<NotificationClient.Event>.Continuation) {
        self.events = events
    }

    func show(_ notification: Notification, replacing: UInt32?) -> Result<UInt32, NotificationError> {
        let object: UnsafeMutablePointer<NotifyNotification>
        let isNew: Bool
        if let replacing, let existing = live[replacing] {
            object = existing
            isNew = false
            notify_notification_update(object, notification.summary, notification.body, notification.icon)
            notify_notification_clear_actions(object)
            notify_notification_clear_hints(object)
        } else {
            guard let created = notify_notification_new(notification.summary, notification.body, notification.icon) else {
                return .failure(NotificationError(name: nil, message: "libnotify could not make a notification"))
            }
            object = created
            isNew = true
            // An id of an earlier process: showing this one replaces that notification.
            if let replacing { gbn_notification_set_id(object, Int32(bitPattern: replacing)) }
            _ = gbn_notification_connect_closed(object, { object, context in
                guard let object, let context else { return }
                Unmanaged<LoopState>.fromOpaque(context).takeUnretainedValue().closed(object)
            }, Unmanaged.passRetained(self).toOpaque(), { context, _ in
                guard let context else { return }
                Unmanaged<LoopState>.fromOpaque(context).release()
            })
        }
        if let entry = notification.desktopEntry { notify_notification_set_hint_string(object, "desktop-entry", entry) }
        if let category = notification.category { notify_notification_set_category(object, category) }
        notify_notification_set_urgency(object, notification.urgency.libnotify)
        for action in notification.actions {
            notify_notification_add_action(object, action.key, action.label, { object, key, context in
                guard let object, let key, let context else { return }
                Unmanaged<LoopState>.fromOpaque(context).takeUnretainedValue().invoked(object, key: String(cString: key))
            }, Unmanaged.passRetained(self).toOpaque(), { context in
                guard let context else { return }
                Unmanaged<LoopState>.fromOpaque(context).release()
            })
        }

        var error: UnsafeMutablePointer<GError>?
        guard notify_notification_show(object, &error) != 0 else {
            if isNew { g_object_unref(object) }
            return .failure(NotificationError(taking: error))
        }
        let id = UInt32(bitPattern: gbn_notification_get_id(object))
        if let replacing, replacing != id { live[replacing] = nil }
        live[id] = object
        return .success(id)
    }

    func close(_ id: UInt32) -> Result<Void, NotificationError> {
        let object: UnsafeMutablePointer<NotifyNotification>
        if let existing = live.removeValue(forKey: id) {
            object = existing
        } else {
            // Shown by an earlier process: an object of our own with its id closes it.
            guard let created = notify_notification_new("", nil, nil) else {
                return .failure(NotificationError(name: nil, message: "libnotify could not make a notification"))
            }
            object = created
            gbn_notification_set_id(object, Int32(bitPattern: id))
        }
        // Released now rather than on the server's NotificationClosed, which some servers do
        // not send for a closed notification.
        defer { g_object_unref(object) }
        var error: UnsafeMutablePointer<GError>?
        guard notify_notification_close(object, &error) != 0 else { return .failure(NotificationError(taking: error)) }
        return .success(())
    }

    func forgetAll() {
        for object in live.values { g_object_unref(object) }
        live = [:]
    }

    // MARK: - Callbacks, on the loop's thread

    fileprivate func invoked(_ object: UnsafeMutablePointer<NotifyNotification>, key: String) {
        let token = notify_notification_get_activation_token(object).map { String(cString: $0) }
        events.yield(.action(id: UInt32(bitPattern: gbn_notification_get_id(object)), key: key, activationToken: token))
    }

    fileprivate func closed(_ object: UnsafeMutablePointer<NotifyNotification>) {
        let id = UInt32(bitPattern: gbn_notification_get_id(object))
        let reason = UInt32(bitPattern: notify_notification_get_closed_reason(object))
        if live[id] == object {
            live[id] = nil
            // libnotify holds its own reference while it emits the signal.
            g_object_unref(object)
        }
        events.yield(.closed(id: id, reason: reason))
    }
}

extension Notification.Urgency {
    fileprivate var libnotify: NotifyUrgency {
        switch self {
        case .low: NOTIFY_URGENCY_LOW
        case .normal: NOTIFY_URGENCY_NORMAL
        case .critical: NOTIFY_URGENCY_CRITICAL
        }
    }
}
