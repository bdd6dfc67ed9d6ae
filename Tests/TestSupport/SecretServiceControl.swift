import Foundation
import Synchronization

/// Drives the Secret Service of a `scripts/desktop-session` from outside, as its user would:
/// locking it, and answering its dialogs (KeePassXC's, KWallet's) through the keyboard, with
/// xdotool on the session's Xvfb display.
///
/// A dialog is told apart by more than its title: it is a visible window of the very process
/// that owns `org.freedesktop.secrets` (KWallet leaves windows of the same title and class
/// behind, unmapped; neither program sets a window role). And one call's dialog is told apart
/// from another's by time: neither KWallet nor KeePassXC takes its dialog down when the call
/// that brought it up gives up, and a second call's request then waits behind it, or (arriving
/// once it is answered) brings up a dialog of its own. `answer(_:by:during:)` therefore waits
/// until no such dialog is on screen before it makes its call, so the one that comes up is the
/// call's.
///
/// Every wait has a limit (`dialogLimit`): past it, the wait and the call are cancelled and a
/// `Failure` says what was on screen.
public enum SecretServiceControl {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// A dialog of the Secret Service's own process, by its title.
    public struct Dialog: Sendable, CustomStringConvertible {
        /// An extended regular expression, searched for in window titles (xdotool's `--name`).
        public let title: String
        public let description: String

        public init(_ description: String, title: String) {
            self.description = description
            self.title = title
        }

        public static let keepassxcUnlock = Dialog("KeePassXC's unlock dialog", title: "^Unlock Database - KeePassXC$")
        public static let keepassxcAccess = Dialog("KeePassXC's access dialog", title: "Access Request")
        public static let kwalletUnlock = Dialog("KWallet's password dialog", title: "^KDE Wallet Service$")
    }

    /// How long a dialog may take to come up, and its call to return once it is answered: about
    /// a second each here, and a few on two cores with the whole suite running beside. Well
    /// under the keyring suites' time limit, so that a dialog nobody answers fails the test with
    /// `Failure`'s message before Swift Testing gives up on it.
    public static let dialogLimit = Duration.seconds(60)

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

    /// Makes `call`, which brings up `dialog`, and once the dialog is on screen gives it the
    /// keyboard and runs `answer` (keys typed and pressed); returns what `call` returned, which
    /// should be a `Result` where an error is the answer expected. Before the call, waits until
    /// no such dialog is on screen. All of it within `limit`; past it, or when the calling task
    /// is cancelled, the call is cancelled and this throws `Failure` naming the step it was at
    /// and the windows on screen. A call that returns before its dialog came up fails too.
    public static func answer<Answered: Sendable>(
        _ dialog: Dialog, within limit: Duration = dialogLimit,
        by answer: @escaping @Sendable () async throws -> Void,
        during call: @escaping @Sendable () async throws -> Answered
    ) async throws -> Answered {
        let step = StepRecord(.waitingForNone)
        return try await failingWithScreen(dialog, limit, step) {
            let owner = try await secretServiceProcess()
            try await waitUntilNoWindow(of: dialog, owner: owner)
            step.set(.waitingForDialog)
            return try await withThrowingTaskGroup(of: Answered?.self) { group in
                group.addTask {
                    try await focus(try await window(of: dialog, owner: owner))
                    step.set(.answering)
                    try await answer()
                    step.set(.waitingForCall)
                    return nil
                }
                group.addTask { try await call() }
                var returned: Answered?
                while let finished = try await group.next() {
                    guard let finished else { continue }
                    guard step.current != .waitingForDialog else {
                        throw Failure(description: "the call returned before \(dialog) came up")
                    }
                    returned = finished
                }
                guard let returned else { throw Failure(description: "the call to bring up \(dialog) returned nothing") }
                return returned
            }
        }
    }

    /// Waits (within `limit`) until `dialog` is on screen and gives it the keyboard, for a
    /// dialog another program's call brings up.
    public static func focus(_ dialog: Dialog, within limit: Duration = dialogLimit) async throws {
        try await failingWithScreen(dialog, limit, StepRecord(.waitingForDialog)) {
            try await focus(try await window(of: dialog, owner: try await secretServiceProcess()))
        }
    }

    /// Closes `dialog` with Escape, and waits until it has left the screen: a dialog left up
    /// by a call that gave up on it, before the next call.
    public static func close(_ dialog: Dialog, within limit: Duration = dialogLimit) async throws {
        let step = StepRecord(.waitingForDialog)
        try await failingWithScreen(dialog, limit, step) {
            let owner = try await secretServiceProcess()
            try await focus(try await window(of: dialog, owner: owner))
            try await press("Escape")
            step.set(.waitingForNone)
            try await waitUntilNoWindow(of: dialog, owner: owner)
        }
    }

    /// Types `text` into the window that has the keyboard.
    public static func type(_ text: String) async throws {
        try await run(["xdotool", "type", "--delay", "20", text])
    }

    /// Presses a key (an X keysym name: Return, Escape) in the window that has the keyboard.
    public static func press(_ key: String) async throws {
        try await run(["xdotool", "key", key])
    }

    /// Every visible window on the display but the root, one a line: its id, its process and
    /// its title.
    public static func screen() async -> String {
        guard let windows = try? await run(["xdotool", "search", "--onlyvisible", "--name", ""]) else {
            return "(xdotool could not list the windows)"
        }
        var lines: [String] = []
        for window in windows.split(separator: "\n") {
            let title = (try? await run(["xdotool", "getwindowname", String(window)]))?.trimmingCharacters(in: .newlines) ?? ""
            // The root window has neither a process nor a title.
            guard let pid = (try? await run(["xdotool", "getwindowpid", String(window)]))?.trimmingCharacters(in: .newlines)
            else {
                if !title.isEmpty { lines.append("window \(window): \"\(title)\"") }
                continue
            }
            lines.append("window \(window) of process \(pid): \"\(title)\"")
        }
        return lines.isEmpty ? "(no window)" : lines.joined(separator: "\n")
    }

    /// Where a wait for a dialog is.
    private enum Step: Sendable {
        case waitingForNone, waitingForDialog, answering, waitingForCall

        func describe(_ dialog: Dialog) -> String {
            switch self {
            case .waitingForNone: "waiting for no \(dialog) to be on screen"
            case .waitingForDialog: "waiting for \(dialog) to come up"
            case .answering: "answering \(dialog)"
            case .waitingForCall: "waiting for the call to return, \(dialog) answered"
            }
        }
    }

    private final class StepRecord: Sendable {
        private let step: Mutex<Step>

        init(_ step: Step) {
            self.step = Mutex(step)
        }

        var current: Step { step.withLock { $0 } }

        func set(_ next: Step) {
            step.withLock { $0 = next }
        }
    }

    /// `body` within `limit`; any error, the deadline passing or the task cancelled included,
    /// becomes a `Failure` saying at which step it was and what was on screen.
    private static func failingWithScreen<Value: Sendable>(
        _ dialog: Dialog, _ limit: Duration, _ step: StepRecord, _ body: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        do {
            return try await withDeadline(limit, "\(dialog)", body)
        } catch {
            let why = error is TimedOut ? "not done within \(limit)" : Task.isCancelled ? "cancelled" : "\(error)"
            // Not cancelled with the caller, so that a test at its time limit still says this.
            let windows = await Task { await screen() }.value
            throw Failure(description: """
                \(dialog): \(why), \(step.current.describe(dialog)); on screen:
                \(windows)
                the end of the Secret Service's log:
                \(secretServiceLog)
                """)
        }
    }

    /// The last lines of the session's Secret Service's log (`scripts/desktop-session` keeps it
    /// in the session's logs/).
    private static var secretServiceLog: String {
        let environment = ProcessInfo.processInfo.environment
        guard let session = environment["PRIVATE_DESKTOP_SESSION"], let name = environment["PRIVATE_DESKTOP_KEYRING_PROGRAM"], !name.isEmpty,
              let log = try? String(contentsOfFile: "\(session)/logs/\(name).log", encoding: .utf8)
        else { return "(none)" }
        return log.split(separator: "\n", omittingEmptySubsequences: false).suffix(30).joined(separator: "\n")
    }

    /// The process that owns `org.freedesktop.secrets` on the session bus: the dialogs are its
    /// windows.
    private static func secretServiceProcess() async throws -> String {
        let reply = try await run(["gdbus", "call", "--session", "--dest", "org.freedesktop.DBus", "--object-path",
                                   "/org/freedesktop/DBus", "--method", "org.freedesktop.DBus.GetConnectionUnixProcessID",
                                   "org.freedesktop.secrets"])
        // (uint32 4242,)
        guard let pid = reply.firstMatch(of: /uint32 (\d+)/)?.1 else {
            throw Failure(description: "no process owns org.freedesktop.secrets: \(reply)")
        }
        return String(pid)
    }

    /// The visible windows of process `owner` titled as `dialog` is.
    private static func windows(of dialog: Dialog, owner: String) async throws -> [String] {
        let argv = ["xdotool", "search", "--all", "--onlyvisible", "--pid", owner, "--name", dialog.title]
        let outcome = try await Program.run(argv, environment: ProcessInfo.processInfo.environment)
        // 1: no such window.
        guard outcome.status == 0 || outcome.status == 1 else {
            throw Failure(description: "\(argv.joined(separator: " ")) failed (\(outcome.status)): \(outcome.stderr)")
        }
        return outcome.stdout.split(separator: "\n").map(String.init)
    }

    // X tells only its own clients of windows mapped and unmapped, and xdotool (the only client
    // here) has no wait for a window to go and a half-second poll for one to come: both are asked
    // for every 50 ms instead, until the caller's deadline cancels the wait.
    private static let windowPollInterval = Duration.milliseconds(50)

    /// The first visible window of `dialog`, once there is one.
    private static func window(of dialog: Dialog, owner: String) async throws -> String {
        while true {
            if let window = try await windows(of: dialog, owner: owner).first { return window }
            try await Task.sleep(for: windowPollInterval)
        }
    }

    private static func waitUntilNoWindow(of dialog: Dialog, owner: String) async throws {
        while try await !windows(of: dialog, owner: owner).isEmpty {
            try await Task.sleep(for: windowPollInterval)
        }
    }

    private static func focus(_ window: String) async throws {
        try await run(["xdotool", "windowfocus", "--sync", window])
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
