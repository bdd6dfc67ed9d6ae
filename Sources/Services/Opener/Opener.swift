import DBus
import Glibc
import PushCore
import Spawn
import SystemCalls

/// Opens what a click opens (`ClickLaunch`): a URL through the OpenURI portal where the system's
/// portal runs (it raises the browser even without an activation token), else by starting a
/// program by argv with no shell. The daemon opens a click on its notifications or its tray
/// this way, and `gbnotifyctl open` and the terminal view open theirs the same way themselves.
public struct Opener: Sendable {
    /// What opening came to.
    public enum Outcome: Sendable {
        /// The portal took the URL.
        case portal(url: String)
        /// The program runs; `portalPassedOver` says why the portal did not get the URL, when
        /// there is one that was not trusted or failed (nil: no portal, or no URL).
        case started(argv: [String], pid: pid_t, portalPassedOver: String?)
        /// The program could not be started: why, and what to install or change.
        case failed(program: String, reason: String, advice: String, portalPassedOver: String?)

        /// What was opened, for `gbnotifyctl open` to say.
        public var summary: String {
            switch self {
            case .portal(let url): "\(OpenURIPortal.interface).OpenURI \(url)"
            case .started(let argv, _, _): argv.joined(separator: " ")
            case .failed(let program, let reason, _, _): "nothing: \(program): \(reason)"
            }
        }
    }

    /// The portal's interface, as the `opened` event names it.
    public static let portalInterface = OpenURIPortal.interface

    private let portal: OpenURIPortal?
    private let launcher: Launcher

    /// - Parameters:
    ///   - connection: the session bus the portal is looked for on; nil opens by launching.
    ///   - environment: what a started program inherits (its `PATH` finds the program).
    ///   - trustedPortals: the executables trusted to be xdg-desktop-portal (tests name their
    ///     own portal); the system's paths unless given.
    ///   - output: where a started program writes (`.devNull` under a terminal view).
    public init(
        connection: DBusConnection?, environment: [String: String], trustedPortals: Set<String>? = nil,
        output: Spawn.Stream = .inherit
    ) {
        portal = connection.map { OpenURIPortal(connection: $0, trusted: trustedPortals ?? OpenURIPortal.systemExecutables) }
        launcher = Launcher(environment: environment, output: output)
    }

    public func open(_ launch: ClickLaunch) async -> Outcome {
        var passedOver: String?
        if let url = launch.url, let portal {
            do throws(OpenURIPortal.Refusal) {
                try await portal.open(url, activationToken: launch.environment["XDG_ACTIVATION_TOKEN"])
                return .portal(url: url)
            } catch .absent {
                passedOver = nil
            } catch {
                passedOver = "the OpenURI portal did not open \(url) (\(error))"
            }
        }
        let program = launch.argv[0]
        do {
            return .started(argv: launch.argv, pid: try launcher.start(launch), portalPassedOver: passedOver)
        } catch {
            return .failed(program: program, reason: "\(error)", advice: Self.advice(for: program), portalPassedOver: passedOver)
        }
    }

    /// What to install or change when `program` is missing or fails.
    public static func advice(for program: String) -> String {
        switch program {
        case "xdg-open": "install xdg-utils (apt install xdg-utils) and set a default browser"
        case "xdg-terminal-exec", "x-terminal-emulator":
            "install a terminal, or set terminal = ... in the config (for example terminal = kitty -e)"
        default: "check that \(program) is installed and works, or change the config"
        }
    }

    /// `ClickLaunch.forClick` with this process's view of the system: the running program's
    /// directory and `PATH`.
    public static func launch(
        for target: PushTarget, config: Config, activationToken: String?, browser: [String] = ClickLaunch.defaultBrowser,
        environment: [String: String]
    ) -> ClickLaunch {
        ClickLaunch.forClick(
            target, config: config, activationToken: activationToken, browser: browser,
            programDirectory: RunningProgram.directory, isInstalled: { RunningProgram.isInstalled($0, environment: environment) })
    }

    /// `ClickLaunch.forReply` with this process's view of the system, as `launch(for:)`.
    public static func replyLaunch(
        to destination: NotificationDestination, of account: Account, config: Config, activationToken: String?,
        environment: [String: String]
    ) -> ClickLaunch {
        ClickLaunch.forReply(
            to: destination, of: account, config: config, activationToken: activationToken,
            programDirectory: RunningProgram.directory, isInstalled: { RunningProgram.isInstalled($0, environment: environment) })
    }
}
