import CommandKit
import DBus
import FoundationEssentials
import PushCore

/// The one way gbnotifyctl calls the running gbnotifyd: over the session bus, to the unique name
/// of whoever owns `org.gitbay.Notify1`, looked up first, so that no call starts a daemon by
/// D-Bus activation. Every command that talks to the daemon goes through `call`.
enum DaemonCall {
    enum Answer {
        case replied([DBusValue])
        /// Nothing owns the daemon's name, or its owner left during the call.
        case notRunning
        /// No session bus to look for a daemon on.
        case noBus(String)
        /// The daemon answered with an error, or not in time.
        case failed(String)
    }

    /// Calls `method` on the running daemon, over `connection` or a connection of its own.
    static func call(
        _ method: DaemonInterface.Method, _ arguments: [DBusValue] = [],
        timeout: Duration = DBusConnection.defaultTimeout, on connection: DBusConnection? = nil
    ) async -> Answer {
        if let connection {
            return await call(method, arguments, timeout: timeout, over: connection)
        }
        let own: DBusConnection
        do {
            own = try await DBusConnection.connect()
        } catch {
            return .noBus("\(error)")
        }
        let answer = await call(method, arguments, timeout: timeout, over: own)
        await own.close()
        return answer
    }

    private static func call(
        _ method: DaemonInterface.Method, _ arguments: [DBusValue], timeout: Duration, over connection: DBusConnection
    ) async -> Answer {
        do {
            guard let owner = try await connection.nameOwner(DaemonInterface.busName) else { return .notRunning }
            return .replied(try await connection.call(
                destination: owner, path: DaemonInterface.objectPath, interface: DaemonInterface.interface,
                member: method.rawValue,
                arguments: arguments, timeout: timeout))
        } catch let error as DBusError
            where error.name == DBusError.Name.serviceUnknown || error.name == DBusError.Name.nameHasNoOwner {
            // It stopped between the lookup and the call.
            return .notRunning
        } catch let error as DBusError {
            return .failed(error.message.isEmpty ? error.name : error.message)
        } catch {
            return .failed("\(error)")
        }
    }

    /// A command's call: prints `success(reply)` and returns 0, or says on standard error what
    /// went wrong, the way a user can act on, and returns 1.
    static func run(
        _ method: DaemonInterface.Method, _ arguments: [DBusValue], success: ([DBusValue]) -> String
    ) async -> Int32 {
        switch await call(method, arguments) {
        case .replied(let reply):
            Console.out(success(reply))
            return ExitStatus.success
        case let answer:
            Console.error("gbnotifyctl: \(answer.trouble ?? "")")
            return ExitStatus.failure
        }
    }

    /// Tells the daemon to re-read accounts and config. Account commands work on their own, so no
    /// bus or no daemon is not worth a word.
    static func reloadIfRunning() async {
        if case .failed(let reason) = await call(.reload) {
            Console.error(
                Localized.text(
                    "gbnotifyctl: warning: the running gbnotifyd did not reload: {reason}",
                    note: "An error of gbnotifyctl. {reason}: the daemon's answer, in English.", ["reason": reason]))
        }
    }

    /// How long `Status()` may take: a daemon that is alive answers in milliseconds, and one that
    /// takes longer is the finding.
    static let statusTimeout = Duration.seconds(10)

    /// `Status()`'s reply decoded, with the JSON as the daemon sent it; nil when it is no status.
    static func status(in reply: [DBusValue]) -> (status: DaemonStatus, json: String)? {
        guard let json = reply.first?.stringValue,
              let status = try? JSONDecoder().decode(DaemonStatus.self, from: Data(json.utf8))
        else { return nil }
        return (status, json)
    }
}

extension DaemonCall.Answer {
    /// What went wrong, in words with what to do; nil for a reply.
    var trouble: String? {
        switch self {
        case .replied: nil
        case .notRunning:
            Localized.text(
                "gbnotifyd is not running (nothing owns {name} on the session bus); start it with '{command}', or run 'gbnotifyd'",
                note: "An error of gbnotifyctl. {name}: the daemon's D-Bus name; {command}: the command that starts it (both stay English).",
                ["name": DaemonInterface.busName, "command": "systemctl --user start gbnotifyd"])
        case .noBus(let reason):
            Localized.text(
                "cannot reach the session bus, so no gbnotifyd either: {reason}",
                note: "An error of gbnotifyctl. {reason}: why, in English.", ["reason": reason])
        case .failed(let reason): reason
        }
    }
}
