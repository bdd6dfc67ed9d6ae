import Foundation

/// Drives the Secret Service of a `scripts/desktop-session` from outside, as its user would:
/// locking it, and answering KeePassXC's dialogs through the keyboard (xdotool on the session's
/// Xvfb display).
public enum SecretServiceControl {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The session's keyring password (`PRIVATE_DESKTOP_KEYRING_PASSWORD`).
    public static var password: String {
        ProcessInfo.processInfo.environment["PRIVATE_DESKTOP_KEYRING_PASSWORD"] ?? ""
    }

    /// Locks every open KeePassXC database, as its "Lock databases" menu entry does. Its
    /// signals for the lock are sent before this returns.
    public static func lockKeePassXC() async throws {
        try await run(["dbus-send", "--session", "--print-reply", "--dest=org.keepassxc.KeePassXC.MainWindow",
                       "/keepassxc", "org.keepassxc.KeePassXC.MainWindow.lockAllDatabases"])
    }

    /// Locks the collection the `default` alias names, through the Secret Service's own `Lock`
    /// (gnome-keyring and KWallet need no prompt for it).
    public static func lockDefaultCollection() async throws {
        let alias = try await run(["gdbus", "call", "--session", "--dest", "org.freedesktop.secrets", "--object-path",
                                   "/org/freedesktop/secrets", "--method", "org.freedesktop.Secret.Service.ReadAlias", "default"])
        // (objectpath '/org/freedesktop/secrets/collection/login',)
        let parts = alias.split(separator: "'")
        guard parts.count == 3, parts[1].hasPrefix("/org/freedesktop/secrets/collection/") else {
            throw Failure(description: "no default collection: \(alias)")
        }
        try await run(["gdbus", "call", "--session", "--dest", "org.freedesktop.secrets", "--object-path",
                       "/org/freedesktop/secrets", "--method", "org.freedesktop.Secret.Service.Lock", "['\(parts[1])']"])
    }

    /// Waits for a visible window whose title contains `title` (a KeePassXC dialog), and gives
    /// it the keyboard. Returns its X window id.
    @discardableResult
    public static func focusWindow(titled title: String) async throws -> String {
        let found = try await run(["xdotool", "search", "--sync", "--onlyvisible", "--name", title])
        guard let window = found.split(separator: "\n").first.map(String.init) else {
            throw Failure(description: "no window titled \(title)")
        }
        try await run(["xdotool", "windowfocus", "--sync", window])
        return window
    }

    /// Types `text` into the window that has the keyboard.
    public static func type(_ text: String) async throws {
        try await run(["xdotool", "type", "--delay", "20", text])
    }

    /// Presses a key (an X keysym name: Return, Escape) in the window that has the keyboard.
    public static func press(_ key: String) async throws {
        try await run(["xdotool", "key", key])
    }

    @discardableResult
    private static func run(_ argv: [String]) async throws -> String {
        let outcome = try await Program.run(argv, environment: ProcessInfo.processInfo.environment)
        guard outcome.status == 0 else {
            throw Failure(description: "\(argv.joined(separator: " ")) failed (\(outcome.status)): \(outcome.stderr)")
        }
        return outcome.stdout
    }
}
