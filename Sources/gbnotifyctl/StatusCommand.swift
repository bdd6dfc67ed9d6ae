import CommandKit
import DBus
import FoundationEssentials
import PushCore

/// `gbnotifyctl status`: what the running daemon is doing, from its `Status()`.
struct StatusCommand: Command {
    static let configuration = CommandConfiguration(
        name: "status",
        abstract: "Show what the running gbnotifyd is doing, account by account.",
        usage: "[--json]",
        discussion: """
            Asks the running gbnotifyd over the session bus. Exits with status 1 when no
            gbnotifyd is running.
            """,
        options: [("--json", "Print the daemon's JSON instead of a table.")]
    )

    var json: Bool

    init(parsing arguments: inout Arguments) throws(UsageError) {
        json = arguments.flag("--json")
    }

    func run() async throws -> Int32 {
        let connection: DBusConnection
        do {
            connection = try await DBusConnection.connect()
        } catch {
            Console.error("gbnotifyctl: cannot reach the session bus, so no gbnotifyd either: \(error)")
            return ExitStatus.failure
        }
        let answer = await Self.askStatus(connection)
        await connection.close()
        switch answer {
        case .notRunning:
            Console.error("""
                gbnotifyctl: gbnotifyd is not running (nothing owns \(DaemonInterface.busName) on the session \
                bus); start it with 'systemctl --user start gbnotifyd', or run 'gbnotifyd'
                """)
            return ExitStatus.failure
        case .failed(let reason):
            Console.error("gbnotifyctl: gbnotifyd did not tell its status: \(reason)")
            return ExitStatus.failure
        case .status(let status, let text):
            print(json ? text : status.renderText(), terminator: json ? "\n" : "")
            return ExitStatus.success
        }
    }

    private enum Answer {
        case notRunning
        case failed(String)
        /// The decoded status and the JSON as the daemon sent it.
        case status(DaemonStatus, String)
    }

    private static func askStatus(_ connection: DBusConnection) async -> Answer {
        do {
            // Asked first so that a call cannot start a daemon by D-Bus activation: status looks,
            // it does not start things.
            guard try await connection.nameHasOwner(DaemonInterface.busName) else { return .notRunning }
            let reply = try await connection.call(
                destination: DaemonInterface.busName, path: DaemonInterface.objectPath,
                interface: DaemonInterface.interface, member: "Status", timeout: .seconds(10))
            guard let text = reply.first?.stringValue,
                  let status = try? JSONDecoder().decode(DaemonStatus.self, from: Data(text.utf8))
            else { return .failed("its answer is not a status") }
            return .status(status, text)
        } catch let error as DBusError
            where error.name == DBusError.Name.serviceUnknown || error.name == DBusError.Name.nameHasNoOwner {
            // It stopped between the two calls.
            return .notRunning
        } catch {
            return .failed("\(error)")
        }
    }
}
