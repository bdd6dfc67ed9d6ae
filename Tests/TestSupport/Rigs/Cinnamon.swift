import Foundation

/// Cinnamon 5.6 in a `DesktopSession`, read through its own code: every call is
/// `org.Cinnamon.Eval` of the probe `scripts/desktop-servers/cinnamon/probe.js` defined when the
/// session started, answered in JSON and decoded here. Cinnamon's banners are Clutter actors,
/// not X windows (neither xdotool nor AT-SPI finds them): the probe says where they are, and a
/// real pointer (XTest) clicks there.
///
/// Cinnamon shows one banner at a time, the rest queue behind it; a banner hides after 60 s
/// here (the session's setting) and its notification moves to the panel's list, still open. A
/// click on a banner's body closes every notification of that app and sender (reason 2).
public struct Cinnamon: Sendable {
    public let session: DesktopSession
    private let shell: ShellProbe

    public init(_ session: DesktopSession) {
        precondition(session.server == .cinnamon, "a \(session.server) session is not Cinnamon")
        self.session = session
        shell = ShellProbe(session: session, destination: "org.Cinnamon", path: "/org/Cinnamon", signals: "org.gbnotify.test.Cinnamon")
    }

    /// One notification the notification daemon holds.
    public struct Notification: Sendable, Decodable, Equatable {
        public typealias Action = NotificationAction

        public let id: UInt32
        public let appName: String
        /// The title as the banner shows it.
        public let title: String
        /// The body's text as rendered (markup applied).
        public let body: String
        /// Notify's actions, `default` included (a click on the body, no button).
        public let actions: [Action]
        public let urgency: Int?
        public let resident: Bool
        /// The source's title (the app's name, or app_name).
        public let source: String?
        /// On the banner now.
        public let onBanner: Bool
        /// Waiting for the banner.
        public let queued: Bool
    }

    /// The banner on screen.
    public struct Banner: Sendable, Decodable, Equatable {
        public typealias Button = BannerButton

        public let id: UInt32?
        public let title: String
        public let body: String
        /// nil while it is not on screen.
        public let area: ScreenArea?
        /// The body's label (the title's when there is no body): where a click on the body goes.
        public let bodyArea: ScreenArea?
        /// The dismiss button.
        public let closeArea: ScreenArea?
        /// The action buttons (every action but `default`).
        public let buttons: [Button]
        /// The tray's banner state: 0 hidden, 1 showing, 2 shown, 3 hiding.
        public let state: Int
        /// Notifications waiting for the banner.
        public let queued: Int

        /// On screen, in place and done animating.
        public var isShown: Bool { state == 2 && area != nil }

        public func button(_ label: String) throws -> Button {
            guard let button = buttons.first(where: { $0.label == label }) else {
                throw DesktopSession.Failure(description: "the banner \"\(title)\" has no button \"\(label)\": \(buttons)")
            }
            return button
        }
    }

    /// A Notify whose handler threw in Cinnamon's JavaScript: it is never answered.
    public struct ThrownNotify: Sendable, Decodable, Equatable {
        public let replacesId: UInt32
        public let title: String
        public let body: String
        /// The exception, as JavaScript prints it.
        public let error: String
    }

    /// Everything the notification daemon holds, by id.
    public func notifications() async throws -> [Notification] {
        try await shell.call("notifications()")
    }

    /// The banner on screen now, or nil.
    public func banner() async throws -> Banner? {
        try await shell.call("banner()")
    }

    /// Every Notify whose handler threw since the session started.
    public func thrownNotifies() async throws -> [ThrownNotify] {
        try await shell.call("thrownNotifies()")
    }

    /// The banner once `condition` holds, checked now and after each change of the tray.
    @discardableResult
    public func waitForBanner(
        timeout: Duration = .seconds(30), where condition: @escaping @Sendable (Banner) -> Bool = { $0.isShown }
    ) async throws -> Banner {
        try await shell.waitForChange(timeout: timeout, "a banner as the test wants it") {
            try await banner().flatMap { condition($0) ? $0 : nil }
        }
    }

    /// The notifications once `condition` holds, checked now and after each change.
    @discardableResult
    public func waitForNotifications(
        timeout: Duration = .seconds(30), where condition: @escaping @Sendable ([Notification]) -> Bool
    ) async throws -> [Notification] {
        try await waitFor(notifications, timeout: timeout, "the notifications the test wants", condition)
    }

    /// The thrown Notifies once `condition` holds, checked now and after each change.
    @discardableResult
    public func waitForThrownNotifies(
        timeout: Duration = .seconds(30), where condition: @escaping @Sendable ([ThrownNotify]) -> Bool
    ) async throws -> [ThrownNotify] {
        try await waitFor(thrownNotifies, timeout: timeout, "the Notifies that threw", condition)
    }

    private func waitFor<Value: Sendable>(
        _ read: @escaping @Sendable () async throws -> Value, timeout: Duration, _ what: String,
        _ condition: @escaping @Sendable (Value) -> Bool
    ) async throws -> Value {
        try await shell.waitForChange(timeout: timeout, what) {
            let found = try await read()
            return condition(found) ? found : nil
        }
    }

    /// A real pointer click on the body of the banner showing `id`, once it is shown: what a
    /// user's click runs (ActionInvoked "default" where it has that action, then every
    /// notification of its source closed, reason 2); where it clicked.
    @discardableResult
    public func pointerClickBanner(_ id: UInt32, timeout: Duration = .seconds(30)) async throws -> ScreenPoint {
        try await pointerClick(on: id, timeout: timeout) { banner in banner.bodyArea }
    }

    /// A real pointer click on the action button `label` of the banner showing `id` (ActionInvoked,
    /// then it closes, reason 2, unless resident); where it clicked.
    @discardableResult
    public func pointerClickButton(_ label: String, on id: UInt32, timeout: Duration = .seconds(30)) async throws -> ScreenPoint {
        try await pointerClick(on: id, timeout: timeout) { banner in try banner.button(label).area }
    }

    /// A real pointer click on the banner's dismiss button: NotificationClosed with reason 0, out
    /// of the specification (the button hands itself to destroy() as the reason).
    @discardableResult
    public func pointerClickClose(_ id: UInt32, timeout: Duration = .seconds(30)) async throws -> ScreenPoint {
        try await pointerClick(on: id, timeout: timeout) { banner in banner.closeArea }
    }

    /// The pointer moves onto the target and clicks, at the pace of a hand rather than of
    /// XTest: the press once Cinnamon has seen the pointer arrive (a press sent with its motion
    /// may reach Clutter before the pointer does, and go elsewhere), the release once it has
    /// seen the press (the dismiss button takes a press and release that come together for no
    /// click).
    private func pointerClick(
        on id: UInt32, timeout: Duration, target: @escaping @Sendable (Banner) throws -> ScreenArea?
    ) async throws -> ScreenPoint {
        let banner = try await waitForBanner(timeout: timeout) { $0.id == id && $0.isShown }
        guard let point = try target(banner)?.center else {
            throw DesktopSession.Failure(description: "the banner of \(id) has no such place on screen: \(banner)")
        }
        let before = try await pointer()
        if before.at != point {
            try await session.runChecked(["xdotool", "mousemove", String(point.x), String(point.y)])
            try await shell.waitForChange(timeout: timeout, "Cinnamon to see the pointer at \(point)") {
                try await pointer().at == point ? true : nil
            }
        }
        try await session.runChecked(["xdotool", "mousedown", "1"])
        try await shell.waitForChange(timeout: timeout, "Cinnamon to see the press at \(point)") {
            try await pointer().presses > before.presses ? true : nil
        }
        try await session.runChecked(["xdotool", "mouseup", "1"])
        return point
    }

    /// What Cinnamon has seen of the pointer: where it last moved to, how many presses.
    private struct Pointer: Decodable {
        let at: ScreenPoint?
        let presses: Int
    }

    private func pointer() async throws -> Pointer {
        try await shell.call("pointer()")
    }

    /// `org.Cinnamon.Eval`: the result JSON-encoded; throws with the shell's error.
    public func eval(_ javaScript: String) async throws -> String {
        try await shell.eval(javaScript)
    }
}
