import DBus
import Foundation

/// GNOME Shell 43 in a `DesktopSession`, read and clicked through its own code: every call is
/// `org.gnome.Shell.Eval` of the test probe the session's extension defines
/// (`scripts/desktop-servers/gnome-shell/`), answered in JSON and decoded here.
///
/// `org.freedesktop.Notifications` belongs to GNOME's gjs helper, which forwards to gnome-shell:
/// a Notify returns once gnome-shell holds the notification, so `notifications()` right after
/// it sees it. Banners come and go on the shell's own schedule: wait for them with
/// `waitForBanner`, which wakes on the probe's Changed signal rather than polling.
public struct GnomeShell: Sendable {
    public let session: DesktopSession
    private let shell: ShellProbe

    public init(_ session: DesktopSession) {
        precondition(session.server == .gnomeShell, "a \(session.server) session is not GNOME Shell")
        self.session = session
        shell = ShellProbe(
            session: session, destination: "org.gnome.Shell", path: "/org/gnome/Shell", signals: "org.gbnotify.test.GnomeShell")
    }

    /// One notification of the message tray, as the shell holds it.
    public struct Notification: Sendable, Decodable, Equatable {
        public struct Action: Sendable, Decodable, Equatable {
            /// The Notify action key; nil for a notification that did not come through Notify.
            public let key: String?
            public let label: String
        }

        /// The server id Notify returned; nil for the shell's own notifications.
        public let id: UInt32?
        /// Notify's app_name.
        public let appName: String?
        /// The source's title: the app's name when `desktop-entry` resolved, else app_name.
        public let source: String
        /// The resolved app (`gbnotify.desktop`), or nil.
        public let sourceApp: String?
        /// The notification's own icon (app_icon or image), as a GIcon string.
        public let icon: String?
        /// The source's icon: the app's, or the notification's; GNOME's generic one otherwise.
        public let sourceIcon: String?
        public let title: String
        /// The body as a label shows it: GNOME's markup repair, then Pango.
        public let body: String
        /// The body as the shell keeps it.
        public let bodyMarkup: String
        public let urgency: Int
        public let resident: Bool
        public let transient: Bool
        /// Seen on a banner (or in the list).
        public let acknowledged: Bool
        public let desktopEntry: String?
        /// Notify's actions, `default` included (a click on the body, no button).
        public let actions: [Action]
    }

    /// The banner on screen.
    public struct Banner: Sendable, Decodable, Equatable {
        /// Its area is nil until the banner is expanded and the button on screen.
        public typealias Button = BannerButton

        public let id: UInt32?
        public let title: String
        /// The body label's text, as rendered.
        public let body: String
        public let expanded: Bool
        /// nil while it is not on screen.
        public let area: ScreenArea?
        public let buttons: [Button]
        /// The tray's notification state: 0 hidden, 1 showing, 2 shown, 3 hiding.
        public let state: Int
        /// Notifications waiting for the banner.
        public let queued: Int

        /// On screen, in place and done animating.
        public var isShown: Bool { state == 2 && area != nil }
    }

    /// Every notification the message tray holds, source by source, oldest first.
    public func notifications() async throws -> [Notification] {
        try await probe("notifications()")
    }

    /// The banner on screen now, or nil.
    public func banner() async throws -> Banner? {
        try await probe("banner()")
    }

    /// The banner once `condition` holds, checked now and after each change of the tray.
    @discardableResult
    public func waitForBanner(
        timeout: Duration = .seconds(30), where condition: @escaping @Sendable (Banner) -> Bool = { $0.isShown }
    ) async throws -> Banner {
        try await waitForChange(timeout: timeout, "a banner as the test wants it") {
            try await banner().flatMap { condition($0) ? $0 : nil }
        }
    }

    /// The notifications once `condition` holds, checked now and after each change of the tray.
    @discardableResult
    public func waitForNotifications(
        timeout: Duration = .seconds(30), where condition: @escaping @Sendable ([Notification]) -> Bool
    ) async throws -> [Notification] {
        try await waitForChange(timeout: timeout, "the notifications the test wants") {
            let found = try await notifications()
            return condition(found) ? found : nil
        }
    }

    /// What a click on the banner or on the list entry runs: GNOME's Notification.activate()
    /// (ActionInvoked "default" where the notification has that action, then it is gone
    /// unless resident).
    public func activate(_ id: UInt32) async throws {
        let _: Bool = try await probe("activate(\(id))")
    }

    /// Emits `clicked` on the banner's button labelled `label`: the button's own handler runs
    /// (ActionInvoked, then the banner closes unless resident). The notification must be on the
    /// banner: GNOME 43 has action buttons there only.
    public func pressButton(_ label: String, on id: UInt32) async throws {
        let _: Bool = try await probe("pressButton(\(id), \(try Self.javaScript(label)))")
    }

    /// A real pointer click on the banner showing `id`, as a user's: the pointer comes onto the
    /// banner (which holds it on screen and expands it), then clicks the upper part of its body,
    /// clear of the buttons; where it clicked.
    @discardableResult
    public func pointerClickBanner(_ id: UInt32, timeout: Duration = .seconds(30)) async throws -> ScreenPoint {
        try await hoverBanner(id, timeout: timeout) { _ in true }
        return try await pointerClickWhenReady(id, label: nil, timeout: timeout)
    }

    /// A real pointer click on the action button `label` of the banner showing `id`: the pointer
    /// comes onto the banner, GNOME expands it and lays its buttons out, the pointer clicks the
    /// middle of the button; where it clicked.
    @discardableResult
    public func pointerClickButton(_ label: String, on id: UInt32, timeout: Duration = .seconds(30)) async throws -> ScreenPoint {
        try await hoverBanner(id, timeout: timeout) { banner in
            banner.expanded && banner.buttons.contains { $0.label == label && $0.area != nil }
        }
        return try await pointerClickWhenReady(id, label: label, timeout: timeout)
    }

    /// The click itself happens in gnome-shell, on the first painted frame in which the pointer
    /// would hit the target there (a layout still settling would send it elsewhere).
    private func pointerClickWhenReady(_ id: UInt32, label: String?, timeout: Duration) async throws -> ScreenPoint {
        try await session.withConnection { connection in
            let clicks = try await connection.signals(
                matching: DBusMatchRule(interface: "org.gbnotify.test.GnomeShell", member: "Clicked"))
            let argument = try label.map(Self.javaScript) ?? "null"
            let _: Bool = try await probe("pointerClickWhenReady(\(id), \(argument))")
            return try await withDeadline(timeout, "the pointer click on notification \(id)") {
                for await click in clicks {
                    guard let x = click.arguments.first?.int32Value, let y = click.arguments.last?.int32Value else { continue }
                    return ScreenPoint(x: Int(x), y: Int(y))
                }
                throw DesktopSession.Failure(description: "the connection closed before the click")
            }
        }
    }

    /// Has the shell move the pointer off the banners and onto the banner showing `id` in the
    /// frame it shows (GNOME expands a banner only when the pointer comes in, not for one that
    /// popped up under it), and waits until the banner is as `ready` wants it.
    @discardableResult
    private func hoverBanner(
        _ id: UInt32, timeout: Duration, until ready: @escaping @Sendable (Banner) -> Bool
    ) async throws -> Banner {
        let _: Bool = try await probe("holdBanner(\(id), null)")
        return try await waitForBanner(timeout: timeout) { $0.id == id && $0.isShown && ready($0) }
    }

    /// From now on, once a banner whose title starts with `prefix` is shown, the shell moves
    /// the pointer onto it in the frame it is first painted there, and so holds it on screen:
    /// unheld, GNOME hides a banner 4 s after it showed once the user is active, and a wait for
    /// it on a busy machine could miss those 4 s and never see it.
    public func holdBanner(titledFrom prefix: String) async throws {
        let _: Bool = try await probe("holdBanner(null, \(try Self.javaScript(prefix)))")
    }

    /// Clutter's virtual pointer moves to `point`, as a mouse would.
    public func pointerMove(to point: ScreenPoint) async throws {
        let _: ScreenPoint = try await probe("pointerMove(\(point.x), \(point.y))")
    }

    /// Clutter's virtual pointer: motion, press and release of the primary button at `point`,
    /// through the shell's input pipeline as a mouse's would go. (GNOME then counts the user as
    /// active: a banner shown within a second hides after 4 s unless the pointer is on it.)
    public func pointerClick(at point: ScreenPoint) async throws {
        let _: ScreenPoint = try await probe("pointerClick(\(point.x), \(point.y))")
    }

    /// Drops every notification and source the tray holds (NotificationClosed reason 2).
    public func clear() async throws {
        let _: Bool = try await probe("clear()")
    }

    /// A PNG of the screen or of `area`, written by gnome-shell.
    public func screenshot(to path: String, area: ScreenArea? = nil) async throws {
        let (member, arguments): (String, [DBusValue]) = if let area {
            ("ScreenshotArea", [.int32(Int32(area.x)), .int32(Int32(area.y)), .int32(Int32(area.width)),
                                .int32(Int32(area.height)), .bool(false), .string(path)])
        } else {
            ("Screenshot", [.bool(false), .bool(false), .string(path)])
        }
        let reply = try await session.withConnection { connection in
            try await connection.call(
                destination: "org.gnome.Shell.Screenshot", path: "/org/gnome/Shell/Screenshot",
                interface: "org.gnome.Shell.Screenshot", member: member, arguments: arguments)
        }
        guard reply.first?.boolValue == true else {
            throw DesktopSession.Failure(description: "gnome-shell did not take the screenshot \(path): \(reply)")
        }
    }

    // MARK: - Eval

    /// `org.gnome.Shell.Eval`: the result JSON-encoded; throws with the shell's error.
    public func eval(_ javaScript: String) async throws -> String {
        try await shell.eval(javaScript)
    }

    private func probe<Value: Decodable>(_ call: String) async throws -> Value {
        try await shell.call(call)
    }

    private static func javaScript(_ string: String) throws -> String {
        try ShellProbe.javaScript(string)
    }

    private func waitForChange<Value: Sendable>(
        timeout: Duration, _ what: String, _ check: @escaping @Sendable () async throws -> Value?
    ) async throws -> Value {
        try await shell.waitForChange(timeout: timeout, what, check)
    }
}
