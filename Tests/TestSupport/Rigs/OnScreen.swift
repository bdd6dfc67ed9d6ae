import Foundation

/// The notification popups on screen in a Plasma, notification-daemon, xfce4-notifyd,
/// mate-notification-daemon, lxqt-notificationd or swaync session, as the accessibility tree (AT-SPI)
/// shows them: their text as rendered, where they are, their buttons; read and pressed by
/// `scripts/desktop-servers/on-screen`.
///
/// A popup appears some time after Notify returns and goes on the server's own schedule (Plasma:
/// about 5 s): `waitForPopup` and `waitUntilGone` wake on the tree's events, not on a timer.
public struct OnScreen: Sendable {
    public let session: DesktopSession

    public init(_ session: DesktopSession) {
        precondition(session.server.hasAccessiblePopups, "\(session.server) has no popups on AT-SPI")
        self.session = session
    }

    public struct Popup: Sendable, Decodable, Equatable {
        public struct Button: Sendable, Decodable, Equatable {
            public let label: String
            public let area: ScreenArea
        }

        /// plasmashell, notification-daemon, xfce4-notifyd, mate-notification-daemon,
        /// lxqt-notificationd or swaync.
        public let server: String
        /// The application name in Plasma's header and on LXQt's popup; nil elsewhere.
        public let app: String?
        public let title: String
        /// The body as rendered (markup applied).
        public let body: String
        public let area: ScreenArea
        /// The body's place on screen: where a pointer click on the body goes.
        public let bodyArea: ScreenArea
        /// Every button on screen, action buttons and the close button alike (Plasma's "Close",
        /// LXQt's "x", the GTK servers' unnamed "").
        public let buttons: [Button]
        /// Where the icon is drawn on the GTK servers' bubbles; nil when the bubble shows none
        /// (notification-daemon, for an icon it cannot load), on Plasma and on LXQt. (xfce4-notifyd draws a "missing image" picture instead: look at the pixels.)
        public let iconArea: ScreenArea?
        /// Where the inline-reply text field is (swaync 0.8 and later); nil where the popup has
        /// none. swaync's areas are within its layer surface, which sway places in a corner of the
        /// output: AT-SPI knows no screen position on Wayland.
        public let replyArea: ScreenArea?

        public func button(_ label: String) throws -> Button {
            guard let button = buttons.first(where: { $0.label == label }) else {
                throw DesktopSession.Failure(description: "the popup \"\(title)\" has no button \"\(label)\": \(buttons)")
            }
            return button
        }
    }

    private static let tool = "\(DesktopSession.serversDirectory)/on-screen"

    /// Every popup on screen now.
    public func popups() async throws -> [Popup] {
        try JSONDecoder().decode([Popup].self, from: Data(try await session.runChecked([Self.tool, "popups"]).utf8))
    }

    /// The popup titled `title`, once it is on screen (at most 60 s); with `body`, once it shows
    /// that body (as rendered), for a popup replaced in place.
    @discardableResult
    public func waitForPopup(titled title: String, body: String? = nil) async throws -> Popup {
        let argv = [Self.tool, "wait", title] + (body.map { ["body", $0] } ?? [])
        return try JSONDecoder().decode(Popup.self, from: Data(try await session.runChecked(argv).utf8))
    }

    /// Returns once no popup titled `title` is on screen (at most 60 s).
    public func waitUntilGone(titled title: String) async throws {
        try await session.runChecked([Self.tool, "wait", title, "gone"])
    }

    /// Presses the button `label` of the popup titled `title` through the toolkit's own action,
    /// as a keyboard or a screen reader would. (notification-daemon acts on a pointer's button
    /// release only: there this does nothing, and only `pointerClickButton` works.)
    public func pressButton(_ label: String, onPopupTitled title: String) async throws {
        try await session.runChecked([Self.tool, "press", title, label])
    }

    /// Writes `text` into the inline-reply field of the popup titled `title` and presses the
    /// button beside it, through the toolkit's own text and action interfaces: what Return in
    /// the field or a click on that button runs (swaync: its `NotificationReplied`). sway here has
    /// no keyboard or pointer to focus the field with (see `DesktopSession.requirePointer`).
    public func reply(_ text: String, onPopupTitled title: String) async throws {
        try await session.runChecked([Self.tool, "reply", title, text])
    }

    /// A real pointer click on the body of the popup titled `title` (the default action where
    /// the server has one), once it is on screen; where it clicked.
    @discardableResult
    public func pointerClickBody(ofPopupTitled title: String) async throws -> ScreenPoint {
        let point = try await waitForPopup(titled: title).bodyArea.center
        try await session.pointerClick(at: point)
        return point
    }

    /// A real pointer click on the button `label` of the popup titled `title`, once it is on
    /// screen; where it clicked.
    @discardableResult
    public func pointerClickButton(_ label: String, onPopupTitled title: String) async throws -> ScreenPoint {
        let point = try await waitForPopup(titled: title).button(label).area.center
        try await session.pointerClick(at: point)
        return point
    }
}
