import CommandKit
import DBus
import FoundationEssentials
import Glibc
import Notifications
import Opener
import PushCore

/// `gbnotifyctl test`: a sample notification, shown by gbnotifyctl itself as gbnotifyd shows its
/// notices (the same content and icon), so it works with or without a running daemon.
struct TestCommand: Command {
    static let configuration = CommandConfiguration(
        name: "test",
        abstract: "Show a sample notification, as gbnotifyd shows its notices.",
        discussion: """
            Where no notification server runs but the bus can start one (its D-Bus service file
            installed, as mako's and MATE's are), the sample starts it, and says which. Exits with
            status 1 when no notification server is running and the bus can start none.
            """
    )

    init(parsing arguments: inout Arguments) throws(UsageError) {}

    func run() async throws -> Int32 {
        let connection: DBusConnection
        do {
            connection = try await DBusConnection.connect()
        } catch {
            Console.error(
                Localized.text("gbnotifyctl: cannot reach the session bus: {error}", note: "An error of gbnotifyctl. {error}: why, in English.", ["error": "\(error)"]))
            return ExitStatus.failure
        }
        let status = await Self.showSample(on: connection)
        await connection.close()
        return status
    }

    private static func showSample(on connection: DBusConnection) async -> Int32 {
        let client: NotificationClient
        do {
            client = try await NotificationClient(on: connection, appName: NotificationContent.appName)
        } catch {
            Console.error(
                Localized.text(
                    "gbnotifyctl: cannot listen to the notification server: {error}", note: "An error of gbnotifyctl test. {error}: why, in English.",
                    ["error": "\(error)"]))
            return ExitStatus.failure
        }
        let wasRunning = (try? await connection.nameOwner(NotificationClient.busName)) != nil
        // Asking is what makes the bus start a server it can, where none runs.
        guard let names = await client.serverCapabilities() else {
            Console.error(
                Localized.text(
                    "gbnotifyctl: no notification server is on the session bus, and none the bus can start ({name} has no owner)",
                    note: "An error of gbnotifyctl test. {name}: the servers' D-Bus name.", ["name": NotificationClient.busName]))
            return ExitStatus.failure
        }
        let content = NotificationContent.sample(capabilities: NotificationCapabilities(advertised: names))
        let icon = Notification.appIcon(environment: ProcessInfo.processInfo.environment)
        do {
            let id = try await client.show(Notification(content, icon: icon), replacing: nil)
            Console.out(
                Localized.text(
                    "gbnotifyctl: sent a sample notification (notification {id})", note: "gbnotifyctl test. {id}: the server's number for it.", ["id": "\(id)"]))
            if !wasRunning {
                let service = ActivatableService.installed(offering: NotificationClient.busName)
                Console.out(
                    service.map {
                        Localized.text(
                            "gbnotifyctl: the bus started the notification server for it: activatable: {server}",
                            note: "gbnotifyctl test, after the sample notification started a server. {server}: its program and service file, as mako (fr.emersion.mako.service).",
                            ["server": "\($0)"])
                    }
                        ?? Localized.text(
                            "gbnotifyctl: the bus started the notification server for it: activatable: its service file was not found",
                            note: "gbnotifyctl test, after the sample notification started a server whose service file was not found."))
            }
            return ExitStatus.success
        } catch {
            Console.error(
                Localized.text(
                    "gbnotifyctl: the notification server refused the sample notification: {error}",
                    note: "An error of gbnotifyctl test. {error}: the server's answer, in English.", ["error": "\(error)"]))
            return ExitStatus.failure
        }
    }
}

/// `gbnotifyctl open [ACCOUNT [PATH]]`: opens what a click on a notice would, with the config
/// file's `open-with`, the way gbnotifyd opens a click (`Opener`), but by itself: the daemon
/// launches only on a click on its own notifications. The desktop entry runs it bare: the inbox
/// of the first account.
struct OpenCommand: Command {
    static let configuration = CommandConfiguration(
        name: "open",
        abstract: "Open an item or the inbox the way a click on a notification does.",
        positionals: [SharedPositionals.account.optional, SharedPositionals.item.optional],
        discussion: """
            ACCOUNT is USER@HOST as 'account list' prints it, or the instance URL. Without a path,
            or with one that names no issue, merge request or build, the account's inbox opens;
            without an account, the first account's. The URL is always built from the account's
            instance. No token is read: only the account's name and instance.
            """
    )

    var account: String
    var path: String

    init(parsing arguments: inout Arguments) throws(UsageError) {
        account = arguments.optionalPositional(SharedPositionals.account.optional) ?? ""
        path = arguments.optionalPositional(SharedPositionals.item.optional) ?? ""
    }

    func run() async throws -> Int32 {
        var environment = ProcessInfo.processInfo.environment
        // A launcher starting this hands its activation token down, which the click's launch
        // passes on under both names.
        let token = ["XDG_ACTIVATION_TOKEN", "DESKTOP_STARTUP_ID"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        environment["XDG_ACTIVATION_TOKEN"] = nil
        environment["DESKTOP_STARTUP_ID"] = nil
        let read = Setup.settings(environment: environment)
        read.warnIfUnusable()
        let source = AccountItems(settings: ViewSettings(read, environment: environment))
        let chosen = try await account.isEmpty ? source.accounts().first : source.account(account)
        guard let chosen else {
            Console.error(
                Localized.text(
                    "gbnotifyctl: there are no accounts in the keyring; {command} adds one", note: "An error of gbnotifyctl open. {command}: the command (stays English).",
                    ["command": "gbnotifyctl account add INSTANCE"]))
            return ExitStatus.failure
        }
        let launch = Opener.launch(
            for: PushTarget(account: chosen, destination: NotificationDestination(path: path)), config: read.config,
            activationToken: token, environment: environment)
        // Without a session bus there is no portal either: the launch goes ahead.
        let connection = try? await DBusConnection.connect()
        let outcome = await Opener(connection: connection, environment: environment).open(launch)
        await connection?.close()
        switch outcome {
        case .portal, .started(_, _, nil):
            Console.out(
                Localized.text("gbnotifyctl: opened: {what}", note: "gbnotifyctl open. {what}: what was opened and how, in English.", ["what": outcome.summary]))
            return ExitStatus.success
        case .started(_, _, let passedOver?):
            Console.error("gbnotifyctl: \(passedOver)")
            Console.out(
                Localized.text("gbnotifyctl: opened: {what}", note: "gbnotifyctl open. {what}: what was opened and how, in English.", ["what": outcome.summary]))
            return ExitStatus.success
        case .failed(let program, let reason, let advice, let passedOver):
            if let passedOver { Console.error("gbnotifyctl: \(passedOver)") }
            Console.error(
                Localized.text(
                    "gbnotifyctl: cannot open: {program}: {reason}; {advice}",
                    note: "An error of gbnotifyctl open. {program}: the program; {reason}: why, and {advice}: what to do, both in English.",
                    ["program": "\(program)", "reason": "\(reason)", "advice": "\(advice)"]))
            return ExitStatus.failure
        }
    }
}
