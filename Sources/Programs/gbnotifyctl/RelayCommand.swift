import CommandKit
import Keyring
import PushCore

struct RelayCommand: Command {
    static let configuration = CommandConfiguration(
        name: "relay",
        abstract: "Store or delete the access token of an ntfy-compatible relay.",
        discussion: """
            The relay itself is set in the config file (relay-url); each account listens on its
            own topic (account list --json shows it). A relay that requires a login gets its
            token from the desktop keyring, never from the config file.
            """,
        subcommands: [RelayLogin.self, RelayLogout.self]
    )
}

struct RelayLogin: Command {
    static let configuration = CommandConfiguration(
        name: "login",
        abstract: "Store the access token gbnotifyd sends to a relay.",
        positionals: [relayURL],
        discussion: """
            Reads the token from standard input, or prompts for it without echo, and stores it in
            the desktop keyring (schema org.gitbay.Relay), replacing an older one for that relay.
            gbnotifyd sends it as "Authorization: Bearer" to the relay at URL only. It is not
            checked here: 'gbnotifyctl status' shows whether the relay accepts it.

            Example: printf '%s\\n' "$NTFY_TOKEN" | gbnotifyctl relay login https://ntfy.example.org
            """
    )

    var url: String

    init(parsing arguments: inout Arguments) throws(UsageError) {
        url = try arguments.positional(relayURL)
    }

    func run() async throws -> Int32 {
        let relay = try GitbayInstance(parsing: url)
        let token = try TokenInput.read(
            prompt: Localized.text(
                "Access token for the relay {url}: ", note: "gbnotifyctl relay token's prompt, typed without echo. {url}: the relay's address.", ["url": relay.url]))
        try await Setup.keyring().storeRelayToken(token, for: relay)
        Console.out(
            Localized.text("Stored the access token for the relay {url}.", note: "gbnotifyctl relay token. {url}: the relay's address.", ["url": "\(relay.url)"]))
        await DaemonCall.reloadIfRunning()
        return ExitStatus.success
    }
}

struct RelayLogout: Command {
    static let configuration = CommandConfiguration(
        name: "logout",
        abstract: "Delete the access token stored for a relay.",
        positionals: [relayURL]
    )

    var url: String

    init(parsing arguments: inout Arguments) throws(UsageError) {
        url = try arguments.positional(relayURL)
    }

    func run() async throws -> Int32 {
        let relay = try GitbayInstance(parsing: url)
        if try await Setup.keyring().deleteRelayToken(for: relay) {
            Console.out(
                Localized.text(
                    "Deleted the access token for the relay {url}.", note: "gbnotifyctl relay token. {url}: the relay's address.", ["url": "\(relay.url)"]))
            await DaemonCall.reloadIfRunning()
        } else {
            Console.out(
                Localized.text(
                    "No access token was stored for the relay {url}.", note: "gbnotifyctl relay token. {url}: the relay's address.", ["url": "\(relay.url)"]))
        }
        return ExitStatus.success
    }
}

/// The relay a `relay` command acts on.
private let relayURL = Positional("URL", help: "relay URL", completion: .url)
