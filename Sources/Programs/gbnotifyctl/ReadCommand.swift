import CommandKit
import PushCore

/// `gbnotifyctl read ACCOUNT --all` and `gbnotifyctl read ACCOUNT PATH`: marking read on the
/// account's own instance, as the web would.
struct ReadCommand: Command {
    static let configuration = CommandConfiguration(
        name: "read",
        abstract: "Mark an account's notices read: all of them, or one item's.",
        positionals: [SharedPositionals.account, itemOrAll],
        discussion: """
            With --all, runs gitbay's notifications read --all with the account's token: every
            unread notice of the account is read, on every client. With an item's path, marks the
            unread notices of that item read (looking through the newest 2,000 unread). A running
            gbnotifyd is told to reload, so its badge falls and its notifications of them go.
            """,
        options: [all]
    )
    static let all = Option("--all", help: "Every unread notice of the account.")
    /// An item, or `--all` in its place.
    static let itemOrAll = Positional(
        "(\(all.name) | \(SharedPositionals.item.name))", help: SharedPositionals.item.help, completion: SharedPositionals.item.completion)

    enum Scope: Equatable {
        case all
        case item(NotificationDestination)
    }

    let account: String
    let scope: Scope

    init(parsing arguments: inout Arguments) throws(UsageError) {
        let all = arguments.flag(Self.all)
        account = try arguments.positional(SharedPositionals.account)
        switch (all, arguments.optionalPositional(Self.itemOrAll)) {
        case (true, nil):
            scope = .all
        case (false, let path?):
            guard let destination = NotificationDestination(path: path) else {
                throw UsageError(SharedPositionals.namesNoItem(path))
            }
            scope = .item(destination)
        case (true, _?):
            throw UsageError(
                Localized.text(
                    "give {option} or an item's path, not both", note: "A usage error of gbnotifyctl read. {option}: --all (stays as it is).", ["option": Self.all.name]))
        case (false, nil):
            throw UsageError(
                Localized.text(
                    "missing {option} or {item}", note: "A usage error of gbnotifyctl read. {option}: --all; {item}: ITEM, as the help names it (both stay as they are).",
                    ["option": Self.all.name, "item": SharedPositionals.item.name]))
        }
    }

    func run() async throws -> Int32 {
        let source = Setup.accountItems()
        let account = try await source.account(self.account)
        switch scope {
        case .all:
            let read = try await source.markAllRead(of: account)
            print(
                read == 0
                    ? Localized.text("Nothing unread on {account}.", note: "gbnotifyctl read. {account}: user@host.", ["account": account.displayName])
                    : Localized.plural(
                        "Marked {count} notice read on {account}.", "Marked {count} notices read on {account}.", count: read,
                        note: "gbnotifyctl read. {account}: user@host.", ["account": account.displayName]))
        case .item(let destination):
            let read = try await source.markRead(destination.path, of: account)
            print(read == 0
                ? Localized.text(
                    "Nothing unread of {path} on {account}.", note: "gbnotifyctl read. {path}: an item's path, as krz/gitbay/issues/12; {account}: user@host.",
                    ["path": destination.path, "account": account.displayName])
                : Localized.plural(
                    "Marked {count} notice of {path} read on {account}.", "Marked {count} notices of {path} read on {account}.", count: read,
                    note: "gbnotifyctl read. {path}: an item's path, as krz/gitbay/issues/12; {account}: user@host.",
                    ["path": destination.path, "account": account.displayName]))
        }
        await DaemonCall.reloadIfRunning()
        return ExitStatus.success
    }
}
