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
    ///   - isInstalled: whether a program is on `PATH`, to pick a fallback terminal.
    public static func forClick(
        _ target: PushTarget, config: Config, activationToken: String?, browser: [String] = defaultBrowser,
        isInstalled: (String) -> Bool
    ) -> ClickLaunch {
        var environment: [String: String] = [:]
        if let activationToken = activationToken.flatMap(usableToken) {
            environment["XDG_ACTIVATION_TOKEN"] = activationToken
            environment["DESKTOP_STARTUP_ID"] = activationToken
        }
        switch (config.openWith, target.destination) {
        case (.terminal, let destination?):
            let argv = config.terminalArgv(for: destination, account: target.account, isInstalled: isInstalled)
            return ClickLaunch(argv: argv, environment: environment, url: nil)
        case (_, let destination?):
            let url = Links.webURL(for: destination, on: target.account.instance)
            return ClickLaunch(argv: browser + [url], environment: environment, url: url)
        case (_, nil):
            // A terminal has no inbox view: the inbox always opens in the browser.
            let url = Links.inboxURL(on: target.account.instance)
            return ClickLaunch(argv: browser + [url], environment: environment, url: url)
        }
    }

    /// The longest activation token passed on; real ones are a few dozen characters.
    public static let maximumTokenLength = 256

    /// A token comes from the notification server: it must still be a harmless environment
    /// value (printable ASCII, bounded), else it is left out rather than passed on.
    private static func usableToken(_ token: String) -> String? {
        guard !token.isEmpty, token.utf8.count <= maximumTokenLength,
              token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else { return nil }
        return token
    }
}
