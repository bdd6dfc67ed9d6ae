import DBus
import Glibc
import Synchronization

/// The desktop's notification server as the desktop stage uses it: `NotificationClient` is the
/// real one, over D-Bus; the tests give the stage a fake that answers in process, kept honest by
/// the suites that run the same scenarios against dunst, GNOME Shell, Plasma and the rest.
public protocol NotificationServer: Sendable {
    /// What the server says, only from the server; the first is the server at the start.
    var events: AsyncStream<NotificationEvent> { get }
    /// The capability names the server advertises; nil when no server answers.
    func serverCapabilities() async -> [String]?
    /// The server's name, vendor and version; nil when no server answers.
    func serverInformation() async -> ServerInformation?
    /// Shows `notification`, in place of `replacing` when given; the server's id for it.
    func show(_ notification: Notification, replacing: UInt32?) async throws(NotificationError) -> UInt32
    /// Withdraws a notification; one the server already closed is no error to it.
    func close(_ id: UInt32) async throws(NotificationError)
    /// Who serves now (a unique name), nil when nobody does: what a notification left on screen
    /// by an earlier daemon is taken over by, when it is the same.
    func serverOwner() async -> String?
}

/// What the notification server says about a notification, or that the server changed.
public enum NotificationEvent: Sendable, Equatable {
    /// An action was invoked: `default` is a click on the body.
    case action(id: UInt32, key: String)
    /// The activation token for the program an action starts; comes just before the action.
    case activationToken(id: UInt32, token: String)
    /// The notification is gone; reason 1 expired, 2 dismissed, 3 closed by a call, 4
    /// undefined (the specification's numbers).
    case closed(id: UInt32, reason: UInt32)
    /// Another connection owns the server's name now (nil: none); the first event is the
    /// owner at the start.
    case serverChanged(owner: String?)

    /// The text typed into the notification's text field (the `inline-reply` action) and sent.
    case replied(id: UInt32, text: String)

    /// The notification it is about; nil for a change of server.
    public var notificationID: UInt32? {
        switch self {
        case .action(let id, _), .activationToken(let id, _), .closed(let id, _), .replied(let id, _): id
        case .serverChanged: nil
        }
    }
}

/// What the server calls itself (`GetServerInformation`).
public struct ServerInformation: Sendable, Equatable {
    public let name: String
    public let vendor: String
    public let version: String

    public init(name: String, vendor: String, version: String) {
        self.name = name
        self.vendor = vendor
        self.version = version
    }
}

/// The desktop's notification server (`org.freedesktop.Notifications`, the freedesktop
/// specification's interface), called over a D-Bus connection the caller holds: notifications
/// shown, replaced in place, closed, and what the server says about them, as Swift values.
///
/// Every call is asynchronous and has a deadline of its own (`callTimeout`): a server that never
/// answers one (Cinnamon 5.6 throws on some replacements and never replies) costs that call its
/// deadline and delays nothing else. libnotify, the usual client, cannot offer that: its calls
/// are synchronous, with D-Bus's fixed 25 s timeout and no way to cancel, which on a process
/// with one loop would stop everything else for as long.
///
/// Signals count only from the connection that owns `org.freedesktop.Notifications` now: any
/// peer may send a signal with these names, and one from elsewhere could click our
/// notifications for the user.
public final class NotificationClient: NotificationServer {
    public static let busName = "org.freedesktop.Notifications"
    public static let path = "/org/freedesktop/Notifications"
    public static let interface = "org.freedesktop.Notifications"
    /// How long any one call may go unanswered.
    public static let callTimeout = Duration.seconds(4)

    /// The members of the interface that gbnotify calls or hears, each named once.
    enum Member: String {
        case notify = "Notify"
        case closeNotification = "CloseNotification"
        case getCapabilities = "GetCapabilities"
        case getServerInformation = "GetServerInformation"
        case actionInvoked = "ActionInvoked"
        case activationToken = "ActivationToken"
        case notificationClosed = "NotificationClosed"
        /// KDE's and swaync's: the text of the `inline-reply` field, `(id, text)`.
        case notificationReplied = "NotificationReplied"
    }

    /// The hints of the text field of the `inline-reply` action (KDE's names, which swaync reads
    /// too).
    static let replyPlaceholderHint = "x-kde-reply-placeholder-text"
    static let replySubmitHint = "x-kde-reply-submit-button-text"

    public let events: AsyncStream<NotificationEvent>
    private let connection: DBusConnection
    private let appName: String
    private let follower: Task<Void, Never>

    /// Follows the server's owner and its signals on `connection`; `appName` is the `app_name`
    /// of every notification. Throws when the bus refuses the subscriptions.
    public init(on connection: DBusConnection, appName: String) async throws {
        let owners = try await connection.watchNameOwner(Self.busName)
        let signals = try await connection.signals(matching: DBusMatchRule(path: Self.path, interface: Self.interface))
        let (events, feed) = AsyncStream.makeStream(of: NotificationEvent.self)
        let owner = CurrentOwner()
        self.events = events
        self.connection = connection
        self.appName = appName
        follower = Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await next in owners {
                        owner.name.withLock { $0 = next }
                        feed.yield(.serverChanged(owner: next))
                    }
                }
                group.addTask {
                    for await signal in signals where signal.sender == owner.name.withLock({ $0 }) {
                        if let event = Self.event(signal) { feed.yield(event) }
                    }
                }
                await group.waitForAll()
                feed.finish()
            }
        }
    }

    deinit {
        follower.cancel()
    }

    /// A signal of the server's interface as an event; nil for one of the wrong shape.
    public static func event(_ signal: DBusSignal) -> NotificationEvent? {
        let arguments = signal.arguments
        guard arguments.count == 2, let id = arguments[0].uint32Value else { return nil }
        switch Member(rawValue: signal.member) {
        case .actionInvoked: return arguments[1].stringValue.map { .action(id: id, key: $0) }
        case .activationToken: return arguments[1].stringValue.map { .activationToken(id: id, token: $0) }
        case .notificationClosed: return arguments[1].uint32Value.map { .closed(id: id, reason: $0) }
        case .notificationReplied: return arguments[1].stringValue.map { .replied(id: id, text: $0) }
        case .notify, .closeNotification, .getCapabilities, .getServerInformation, nil: return nil
        }
    }

    public func serverOwner() async -> String? {
        (try? await connection.nameOwner(Self.busName)) ?? nil
    }

    /// The capability names the server advertises; nil when no server answers.
    public func serverCapabilities() async -> [String]? {
        try? await call(.getCapabilities).first?.stringArrayValue
    }

    /// The server's name, vendor and version; nil when no server answers.
    public func serverInformation() async -> ServerInformation? {
        guard let reply = try? await call(.getServerInformation), reply.count == 4,
              let name = reply[0].stringValue, let vendor = reply[1].stringValue, let version = reply[2].stringValue
        else { return nil }
        return ServerInformation(name: name, vendor: vendor, version: version)
    }

    /// Shows `notification`, in place of the notification `replacing` when given (one of ours,
    /// or one an earlier process showed); returns the server's id for it, which a server that
    /// no longer had `replacing` may have chosen anew. A server the bus can start by D-Bus
    /// activation is started.
    public func show(_ notification: Notification, replacing: UInt32?) async throws(NotificationError) -> UInt32 {
        var hints: [String: DBusValue] = [
            "urgency": .byte(notification.urgency.rawValue),
            // As libnotify sends it: some servers group or attribute by it.
            "sender-pid": .int64(Int64(getpid())),
        ]
        if let entry = notification.desktopEntry { hints["desktop-entry"] = .string(entry) }
        if let category = notification.category { hints["category"] = .string(category) }
        // Off unless a rule or the config names a sound: a server that plays one by default
        // (GNOME Shell, Plasma) is told not to.
        if notification.staysUntilDismissed { hints["resident"] = .bool(true) }
        if let sound = notification.sound {
            hints["sound-name"] = .string(sound)
        } else {
            hints["suppress-sound"] = .bool(true)
        }
        if let field = notification.inlineReply {
            hints[Self.replyPlaceholderHint] = .string(field.placeholder)
            hints[Self.replySubmitHint] = .string(field.submitLabel)
        }
        let reply = try await call(
            .notify,
            [
                .string(appName), .uint32(replacing ?? 0), .string(notification.icon), .string(notification.summary),
                .string(notification.body), .stringArray(notification.actions.flatMap { [$0.key, $0.label] }),
                // -1: the server's own expiry; 0: never.
                .vardict(hints), .int32(notification.staysUntilDismissed ? 0 : -1),
            ])
        guard let id = reply.first?.uint32Value, id != 0 else {
            throw NotificationError(name: nil, message: "the notification server answered Notify without an id")
        }
        return id
    }

    /// Withdraws a notification; one the server already closed is no error to it. Never starts
    /// a server by D-Bus activation: one that is not running shows nothing to withdraw.
    public func close(_ id: UInt32) async throws(NotificationError) {
        _ = try await call(.closeNotification, [.uint32(id)], startingService: false)
    }

    private func call(_ member: Member, _ arguments: [DBusValue] = [], startingService: Bool = true) async throws(NotificationError) -> [DBusValue] {
        do {
            return try await connection.call(
                destination: Self.busName, path: Self.path, interface: Self.interface, member: member.rawValue, arguments: arguments,
                timeout: Self.callTimeout, startingService: startingService)
        } catch let error as DBusError {
            throw NotificationError(name: error.name, message: error.message)
        } catch {
            throw NotificationError(name: nil, message: "\(error)")
        }
    }
}

/// The unique name signals count from, shared by the tasks that follow them.
private final class CurrentOwner: Sendable {
    let name = Mutex<String?>(nil)
}

/// One notification as it is sent.
public struct Notification: Sendable, Equatable {
    public struct Action: Sendable, Equatable {
        public let key: String
        public let label: String

        public init(key: String, label: String) {
            self.key = key
            self.label = label
        }
    }

    /// The specification's urgency levels, as the `urgency` hint's byte; never `critical` (2),
    /// which would break through the desktop's do-not-disturb.
    public enum Urgency: UInt8, Sendable {
        case low = 0, normal = 1
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
    /// The `sound-name` hint; nil sends `suppress-sound`.
    public var sound: String?
    /// Never expires, and `resident`: it stays until the user dismisses it.
    public var staysUntilDismissed: Bool
    /// The text field's placeholder and submit label, where the actions have `inline-reply`.
    public var inlineReply: InlineReply?

    public struct InlineReply: Sendable, Equatable {
        public let placeholder: String
        public let submitLabel: String

        public init(placeholder: String, submitLabel: String) {
            self.placeholder = placeholder
            self.submitLabel = submitLabel
        }
    }

    public init(
        summary: String, body: String, icon: String, actions: [Action], desktopEntry: String?, category: String?,
        urgency: Urgency, sound: String?, staysUntilDismissed: Bool, inlineReply: InlineReply? = nil
    ) {
        self.summary = summary
        self.body = body
        self.icon = icon
        self.actions = actions
        self.desktopEntry = desktopEntry
        self.category = category
        self.urgency = urgency
        self.sound = sound
        self.staysUntilDismissed = staysUntilDismissed
        self.inlineReply = inlineReply
    }
}

/// A call to the notification server that failed: the D-Bus error's name when the server (or
/// the bus) sent one, and its message.
public struct NotificationError: Error, Sendable, Equatable, CustomStringConvertible {
    public let name: String?
    public let message: String

    public var description: String { name.map { "\($0): \(message)" } ?? message }

    /// No notification server on the bus, and none that D-Bus could start: nothing can be
    /// activated for the name, or what the bus started for it failed (`Spawn.ChildExited`, say:
    /// mako's service file on a session with no Wayland display).
    public var meansNoServer: Bool {
        guard let name else { return false }
        return [
            "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
            "org.freedesktop.DBus.Error.NoServer",
        ].contains(name) || name.hasPrefix("org.freedesktop.DBus.Error.Spawn.")
    }

    /// The server refused it as one too many alike: Plasma refuses a Notify whose app, summary
    /// and body equal the last one's within a second. The same call a moment later goes through.
    public var meansTooSoon: Bool {
        name == "org.freedesktop.Notifications.Error.ExcessNotificationGeneration"
    }

    public init(name: String?, message: String) {
        self.name = name
        self.message = message
    }
}
