import CommandKit
import DBus
import Glibc
import PushCore

/// `gbnotifyctl test`: a sample notification through the running daemon.
struct TestCommand: Command {
    static let configuration = CommandConfiguration(
        name: "test",
        abstract: "Show a sample notification through the running gbnotifyd.",
        discussion: "Exits with status 1 when no gbnotifyd or no notification server is running."
    )

    init(parsing arguments: inout Arguments) throws(UsageError) {}

    func run() async throws -> Int32 {
        await DaemonCall.run("Test", [], interface: DesktopInterface.interface) { _ in "gbnotifyctl: sent a sample notification" }
    }
}

/// `gbnotifyctl open [ACCOUNT [PATH]]`: opens what a click on a notice would, through the
/// running daemon, with its `open-with` setting. The desktop entry runs it bare: the inbox of
/// the first account.
struct OpenCommand: Command {
    static let configuration = CommandConfiguration(
        name: "open",
        abstract: "Open an item or the inbox the way a click on a notification does.",
        usage: "[ACCOUNT [OWNER/REPO/(issues|mrs|builds)/N]]",
        discussion: """
            ACCOUNT is USER@HOST as 'account list' prints it, or the instance URL. Without a path,
            or with one that names no issue, merge request or build, the account's inbox opens;
            without an account, the first account's. The URL is always built from the account's
            instance.
            """
    )

    var account: String
    var path: String

    init(parsing arguments: inout Arguments) throws(UsageError) {
        account = arguments.optionalPositional() ?? ""
        path = arguments.optionalPositional() ?? ""
    }

    func run() async throws -> Int32 {
        // A launcher starting this hands its activation token down; the daemon passes it on.
        let token = ProcessEnvironmentToken.current
        return await DaemonCall.run(
            "Open", [.string(account), .string(path), .string(token)], interface: DesktopInterface.interface
        ) { reply in
            "gbnotifyctl: opened: \(reply.first?.stringValue ?? "")"
        }
    }
}

private enum ProcessEnvironmentToken {
    static var current: String {
        for name in ["XDG_ACTIVATION_TOKEN", "DESKTOP_STARTUP_ID"] {
            if let value = getenv(name).map({ String(cString: $0) }), !value.isEmpty { return value }
        }
        return ""
    }
}
