import CommandKit
import DBus
import FoundationEssentials
import Gettext
import Glibc
import PushCore
import SystemCalls

/// `gbnotifyctl doctor [ACCOUNT] [--json]`: checks everything gbnotifyd needs and says what to do
/// about each thing that is missing. It looks and asks; it starts nothing (no D-Bus activation,
/// no daemon) and changes nothing.
struct DoctorCommand: Command {
    static let configuration = CommandConfiguration(
        name: "doctor",
        abstract: "Check everything gbnotifyd needs, and say how to fix what is missing.",
        positionals: [SharedPositionals.account.optional],
        discussion: """
            Checks, one line each: the session bus; the notification server, and whether it shows
            actions and body markup; a dock that shows badges (a warning only); the tray host, the
            program that owns org.kde.StatusNotifierWatcher (a warning only; none with tray =
            off); the Secret Service,
            present and unlocked; how a click brings the browser to the front (the OpenURI
            portal, or a note on Wayland without one); systemd-logind and NetworkManager on the
            system bus (notes when missing: gbnotifyd then cannot poll at once after a resume or
            when the network returns); each account's instance, reachable and accepting its token
            (within seconds even when an instance is down), and for a token gbnotifyctl minted over
            SSH, its SSH host answering whoami with your key (a warning otherwise: account remove
            could not revoke the token); the systemd user unit, enabled (a note
            when there is no systemd user manager); gbnotifyd, running, with its status, and its
            relay stream when one is configured; the config file, valid; and the terminal a click
            opens with open-with = terminal, installed, and the command it runs there (notes only
            when clicks open the browser); and the language gbnotify speaks (a note when LANGUAGE
            is set but the locale of messages is C, in which glibc does not follow it). Every line
            that is not "ok" says what to do. It starts
            nothing and changes nothing, though a locked keyring may ask to be unlocked.

            ACCOUNT (USER@HOST as 'account list' prints it, or the instance URL) limits the account
            checks to that account. An account on plain http to another machine is not sent its
            token unless the config says allow-http = true, as gbnotifyd would not send it either.

            Exits with status 0 when every check passed, 1 when any failed; warnings and notes do
            not fail it.
            """,
        options: [json]
    )
    static let json = Option(
        "--json", help: "Print the findings as JSON: {\"passed\": BOOL, \"findings\": [{\"check\", \"verdict\", \"finding\", \"fix\"}]}.")

    var account: String?
    var json: Bool

    init(parsing arguments: inout Arguments) throws(UsageError) {
        json = arguments.flag(Self.json)
        account = arguments.optionalPositional(SharedPositionals.account.optional)
    }

    func run() async throws -> Int32 {
        // JSON stays English, for scripts: the findings are made without the catalog.
        if json { Localized.use(nil) }
        let environment = ProcessInfo.processInfo.environment
        let config = DoctorConfig.check(environment: environment)
        var findings: [DoctorFinding] = []
        let connection: DBusConnection?
        do {
            connection = try await DBusConnection.connect()
            findings.append(.sessionBus(unreachable: nil))
        } catch {
            connection = nil
            findings.append(.sessionBus(unreachable: "\(error)"))
        }
        let desktop = connection.map(DoctorDesktop.init)
        if let desktop {
            findings.append(await desktop.notificationServer(maxNotifications: config.config.maxNotifications))
            findings.append(await desktop.dock())
            findings.append(await desktop.tray(mode: config.config.tray))
            findings.append(await desktop.focus(wayland: environment["WAYLAND_DISPLAY"] != nil))
        }
        findings.append(await DoctorDesktop.system())
        findings += await DoctorAccounts.check(only: account, config: config)
        if let desktop {
            findings.append(await desktop.systemdUnit())
            findings += await desktop.daemon()
        }
        await connection?.close()
        findings.append(config.finding)
        findings += DoctorFinding.terminal(config.config) { program in
            ExecutableSearch.isInstalled(program, path: environment["PATH"]) { access($0, X_OK) == 0 }
        }
        let session = Gettext.sessionLanguage
        findings.append(
            .language(
                catalog: Gettext.catalogLanguage, language: session.language, messagesLocale: session.messagesLocale,
                requestedLocale: ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }))

        let report = DoctorReport(findings)
        if json { Console.json(report.renderJSON()) } else { Console.out(report.renderText(), terminator: "") }
        return report.exitStatus
    }
}
