/// What a click launches: an argv (never a shell line) and the variables to add to the
/// environment, decided from a resolved target and the config alone.
public struct ClickLaunch: Sendable, Equatable {
    public let argv: [String]
    /// The activation token under both names desktops read it from: Wayland's
    /// `XDG_ACTIVATION_TOKEN` and X11's `DESKTOP_STARTUP_ID`.
    public let environment: [String: String]
    /// The web address, when the click opens one in the browser: what the OpenURI portal is
    /// handed instead of launching `argv`, where there is a portal.
    public let url: String?

    /// The browser command a URL is appended to, unless a caller (a test) passes another.
    public static let defaultBrowser = ["xdg-open"]

    /// - Parameters:
    ///   - target: the account and, when the path was routable, the item; no item opens the
    ///     account's inbox.
    ///   - browser: the program (and leading arguments) that opens a URL.
    ///   - programDirectory: the directory of the running gbnotifyd, where a `gbnotifyctl` of
    ///     the same build is looked for first (see `viewerProgram`).
    ///   - isInstalled: whether a program is on `PATH` (or, given a path, executable there), to
    ///     pick a fallback terminal and the `gbnotifyctl` that runs the view.
    public static func forClick(
        _ target: PushTarget, config: Config, activationToken: String?, browser: [String] = defaultBrowser,
        programDirectory: String? = nil, isInstalled: (String) -> Bool
    ) -> ClickLaunch {
        guard config.openWith == .terminal else {
            return inBrowser(target, activationToken: activationToken, browser: browser)
        }
        let viewer = viewerProgram(in: programDirectory, isInstalled: isInstalled)
        let argv = config.terminalArgv(for: target, viewer: viewer, isInstalled: isInstalled)
        return ClickLaunch(argv: argv, environment: activationEnvironment(activationToken), url: nil)
    }

    /// "Reply…" on a notice of `destination`: its terminal view in the terminal, with the
    /// editor (`Config.terminalReplyArgv`).
    public static func forReply(
        to destination: NotificationDestination, of account: Account, config: Config, activationToken: String?,
        programDirectory: String? = nil, isInstalled: (String) -> Bool
    ) -> ClickLaunch {
        let viewer = viewerProgram(in: programDirectory, isInstalled: isInstalled)
        let argv = config.terminalReplyArgv(to: destination, of: account, viewer: viewer, isInstalled: isInstalled)
        return ClickLaunch(argv: argv, environment: activationEnvironment(activationToken), url: nil)
    }

    /// Opens `target` in the browser, whatever `open-with` says: the item's page, or the inbox
    /// when there is no item. The terminal view's "open in the browser" key launches this too.
    public static func inBrowser(
        _ target: PushTarget, activationToken: String?, browser: [String] = defaultBrowser
    ) -> ClickLaunch {
        let instance = target.account.instance
        let url = target.destination.map { Links.webURL(for: $0, on: instance) } ?? Links.inboxURL(on: instance)
        return ClickLaunch(argv: browser + [url], environment: activationEnvironment(activationToken), url: url)
    }

    /// The `gbnotifyctl` that runs the terminal view: the one in `directory` (gbnotifyd's own)
    /// when there is one, else whichever `PATH` finds.
    ///
    /// Beside the daemon first, because that one is of the daemon's own build and install (a
    /// `make install PREFIX=~/.local`, a package, a build tree), while the `PATH` of a daemon
    /// started by systemd or D-Bus activation is the service manager's, which often lacks the
    /// user's own directories, and may find an older install first.
    public static func viewerProgram(in directory: String?, isInstalled: (String) -> Bool) -> String {
        let name = CommandTemplate.viewerName
        guard let directory, directory.hasPrefix("/") else { return name }
        let beside = directory.hasSuffix("/") ? directory + name : "\(directory)/\(name)"
        return isInstalled(beside) ? beside : name
    }

    /// The longest activation token passed on; real ones are a few dozen characters.
    public static let maximumTokenLength = 256

    /// The activation token under both names, when it is one to pass on.
    private static func activationEnvironment(_ token: String?) -> [String: String] {
        guard let token = token.flatMap(usableToken) else { return [:] }
        return ["XDG_ACTIVATION_TOKEN": token, "DESKTOP_STARTUP_ID": token]
    }

    /// A token comes from the notification server: it must still be a harmless environment
    /// value (printable ASCII, bounded), else it is left out rather than passed on.
    private static func usableToken(_ token: String) -> String? {
        guard !token.isEmpty, token.utf8.count <= maximumTokenLength,
              token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else { return nil }
        return token
    }
}
