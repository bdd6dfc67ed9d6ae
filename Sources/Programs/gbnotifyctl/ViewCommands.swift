import CommandKit
import FoundationEssentials
import Glibc
import PushCore
import Terminal
import TerminalView

/// `gbnotifyctl show ACCOUNT PATH [--json]`: an issue, merge request or build, read from the
/// account's own instance; what a click opens in terminal mode.
struct ShowCommand: Command {
    static let configuration = CommandConfiguration(
        name: "show",
        abstract: "Show an issue, merge request or build, read from its account's own instance.",
        positionals: [SharedPositionals.account, SharedPositionals.item],
        discussion: """
            ACCOUNT is USER@HOST as 'account list' prints it, or the instance URL; the item is read
            with that account's token from that account's instance (the gitbay CLI, by contrast,
            talks to its own default instance). At a terminal the view stays until q: arrows, j/k,
            PgUp/PgDn and g/G scroll, \(ViewKeys.markRead.keys) marks the item's notices read on its instance,
            \(ViewKeys.open.keys) opens it in the browser, \(ViewKeys.reload.keys) reloads, q quits. On an issue or a merge request,
            \(ViewKeys.reply.keys) writes a reply in $VISUAL (else $EDITOR, else vi) and posts it as 'gbnotifyctl
            reply' does: a draft kept for the item (a reply that could not be posted) is said, and
            the editor starts from it; \(ViewKeys.thumbsUp.keys) reacts +1 (again: takes it back); \(ViewKeys.react.keys) opens a picker
            of every reaction the instance knows, each set with its digit or, when it is yours,
            taken back. Errors are drawn and wait for q too. When standard output is not a
            terminal the item is printed as plain text, COLUMNS wide (80 by default); colours
            follow NO_COLOR.
            """,
        options: [json, reply]
    )
    static let json = Option("--json", help: "Print the item's data as the API gave it.")
    static let reply = Option(
        "--reply", help: "Open the reply's editor as soon as the issue or merge request is shown (a terminal is needed).")

    let account: String
    let destination: NotificationDestination
    let json: Bool
    let reply: Bool

    init(parsing arguments: inout Arguments) throws(UsageError) {
        json = arguments.flag(Self.json)
        reply = arguments.flag(Self.reply)
        account = try arguments.positional(SharedPositionals.account)
        let path = try arguments.positional(SharedPositionals.item)
        guard let destination = NotificationDestination(path: path) else {
            throw UsageError(SharedPositionals.namesNoItem(path))
        }
        if reply {
            guard !json else {
                throw UsageError(Localized.text("--reply opens the view's editor; it does not go with --json", note: "A usage error of gbnotifyctl show. The options stay English."))
            }
            self.destination = try ReplyCommand.discussion(parsing: path, for: .reply)
        } else {
            self.destination = destination
        }
    }

    func run() async throws -> Int32 {
        let view = ViewCommand()
        let (reference, destination, reply) = (account, destination, reply)
        if json {
            return await view.printJSON { source throws(ReadProblem) in
                try await source.itemJSON(destination, of: try await source.account(reference))
            }
        }
        guard view.isInteractive else {
            if reply {
                Console.error("gbnotifyctl: --reply needs a terminal; 'gbnotifyctl reply' replies without one")
                return ExitStatus.failure
            }
            return await view.printPlain { source, width, now throws(ReadProblem) in
                let details = try await source.item(destination, of: try await source.account(reference))
                return (PlainText.item(details, width: width, now: now), true)
            }
        }
        return await view.run { size, now in
            ViewState.item(account: reference, destination: destination, size: size, now: now, reply: reply)
        }
    }
}

/// `gbnotifyctl inbox [ACCOUNT] [--json]`: the unread inbox of every account, or one; what a
/// click on a summary opens in terminal mode.
struct InboxCommand: Command {
    static let configuration = CommandConfiguration(
        name: "inbox",
        abstract: "Show the unread inbox of every account (or one), newest first, by account.",
        positionals: [SharedPositionals.account.optional],
        discussion: """
            Each account's inbox is read from its own instance with its own token, up to 200 rows
            each. At a terminal the view stays until q: arrows, j/k, PgUp/PgDn and g/G move the
            selection, \(ViewKeys.view.keys) shows the selected item (q or Esc goes back; there the
            keys of 'show' work), \(ViewKeys.markRead.keys) marks it read, \(ViewKeys.open.keys) opens it in the browser, \(ViewKeys.reload.keys) reloads.
            When standard output is not a terminal the inbox is printed as plain text, COLUMNS
            wide (80 by default); colours follow NO_COLOR. Exits with status 1 when an account's
            inbox could not be read.
            """,
        options: [json]
    )
    static let json = Option(
        "--json", help: "Print [{\"account\", \"instance\", \"inbox\"}] with each inbox's data as the API gave it (or \"error\").")

    let account: String?
    let json: Bool

    init(parsing arguments: inout Arguments) throws(UsageError) {
        json = arguments.flag(Self.json)
        account = arguments.optionalPositional(SharedPositionals.account.optional)
    }

    func run() async throws -> Int32 {
        let view = ViewCommand()
        let reference = account
        if json {
            return await view.printInboxJSON(reference)
        }
        guard view.isInteractive else {
            return await view.printPlain { source, width, now throws(ReadProblem) in
                var inboxes: [AccountInbox] = []
                for account in try await source.accounts(named: reference) {
                    do throws(ReadProblem) {
                        inboxes.append(AccountInbox(account: account, listing: .success(try await source.inbox(of: account))))
                    } catch {
                        inboxes.append(AccountInbox(account: account, listing: .failure(error)))
                    }
                }
                let allRead = inboxes.allSatisfy { if case .success = $0.listing { true } else { false } }
                return (PlainText.inbox(inboxes, width: width, now: now), allRead)
            }
        }
        return await view.run { size, now in ViewState.inbox(account: reference, size: size, now: now) }
    }
}

/// What `show` and `inbox` share: the settings, the source, and the three ways out (the
/// interactive view, plain text, JSON).
private struct ViewCommand {
    let environment = ProcessInfo.processInfo.environment
    let settings: ViewSettings
    let source: AccountItems

    init() {
        let read = Setup.settings(environment: environment)
        read.warnIfUnusable()
        settings = ViewSettings(read, environment: environment)
        source = AccountItems(settings: settings)
    }

    var isInteractive: Bool { RawTerminal.isInteractive(environment: environment) }

    /// `NO_COLOR` set to anything but the empty string turns colours off (no-color.org).
    var colors: Bool { (environment["NO_COLOR"] ?? "").isEmpty }

    private var now: Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    func run(_ start: @escaping (TerminalSize, Double) -> (ViewState, [ViewEffect])) async -> Int32 {
        let now = self.now
        return await ViewLoop.run({ start($0, now) }, source: source, options: .init(colors: colors)) {
            Console.error("gbnotifyctl: \($0)")
        }
    }

    /// The text `produce` makes, on standard output; its problem, on standard error (status 1).
    func printPlain(
        _ produce: (AccountItems, Int, Double) async throws(ReadProblem) -> (text: String, complete: Bool)
    ) async -> Int32 {
        do {
            let (text, complete) = try await produce(source, PlainText.width(environment: environment), now)
            Console.out(text, terminator: "")
            return complete ? ExitStatus.success : ExitStatus.failure
        } catch {
            Console.error("gbnotifyctl: \(error)")
            return ExitStatus.failure
        }
    }

    func printJSON(_ produce: (AccountItems) async throws(ReadProblem) -> [UInt8]) async -> Int32 {
        do {
            Console.json(String(decoding: try await produce(source), as: UTF8.self))
            return ExitStatus.success
        } catch {
            Console.error("gbnotifyctl: \(error)")
            return ExitStatus.failure
        }
    }

    /// `[{"account": "cmc@gitbay.org", "instance": "https://gitbay.org", "inbox": DATA}]`, DATA
    /// as the API gave it, or `"error": "..."` in its place.
    func printInboxJSON(_ reference: String?) async -> Int32 {
        let accounts: [Account]
        do {
            accounts = try await source.accounts(named: reference)
        } catch {
            Console.error("gbnotifyctl: \(error)")
            return ExitStatus.failure
        }
        var entries: [String] = []
        var failed = false
        for account in accounts {
            var entry = #"{"account":\#(Self.quoted(account.reference)),"instance":\#(Self.quoted(account.instance.url)),"#
            do {
                entry += #""inbox":"# + String(decoding: try await source.inboxJSON(of: account), as: UTF8.self) + "}"
            } catch {
                failed = true
                entry += #""error":\#(Self.quoted("\(error)"))}"#
            }
            entries.append(entry)
        }
        Console.json("[" + entries.joined(separator: ",") + "]")
        return failed ? ExitStatus.failure : ExitStatus.success
    }

    private static func quoted(_ text: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        // Encoding a string cannot fail.
        return (try? encoder.encode(text)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
    }
}
