import CommandKit
import PushCore

/// `gbnotifyctl react ACCOUNT PATH REACTION [--remove]`: a reaction on an issue or a merge
/// request, set or taken back, with the account's own token on its own instance.
struct ReactCommand: Command {
    static let configuration = CommandConfiguration(
        name: "react",
        abstract: "React to an issue or a merge request (+1, eyes, ...), or take a reaction back.",
        positionals: [SharedPositionals.account, ReplyCommand.discussion, reaction],
        discussion: """
            Runs gitbay's issue react or mr react with the account's token. A reaction is one state
            per account, item and name: setting it twice changes nothing, and --remove takes it back.
            gitbay knows \(Reaction.names.joined(separator: ", ")); the instance names its own when
            it refuses one. Builds take no reaction.
            """,
        options: [remove]
    )
    static let reaction = Positional("REACTION", help: "reaction name", completion: .choices(Reaction.names))
    static let remove = Option("--remove", help: "Take the reaction back.")

    let account: String
    let destination: NotificationDestination
    let reaction: String
    let remove: Bool

    init(parsing arguments: inout Arguments) throws(UsageError) {
        remove = arguments.flag(Self.remove)
        account = try arguments.positional(SharedPositionals.account)
        destination = try ReplyCommand.discussion(parsing: try arguments.positional(ReplyCommand.discussion), for: .reaction)
        reaction = try arguments.positional(Self.reaction)
    }

    func run() async throws -> Int32 {
        let source = Setup.accountItems()
        let account = try await source.account(self.account)
        let answer = try await source.react(reaction, remove: remove, on: destination, of: account)
        let values: KeyValuePairs = ["reaction": answer.reaction, "item": destination.shortName, "account": account.displayName]
        print(answer.removed
            ? Localized.text(
                "Took back {reaction} on {item} as {account}.",
                note: "gbnotifyctl react --remove's line. {reaction}: the reaction's name; {item}: owner/repo#12; {account}: user@host.", values)
            : Localized.text(
                "Reacted {reaction} on {item} as {account}.",
                note: "gbnotifyctl react's line. {reaction}: the reaction's name; {item}: owner/repo#12; {account}: user@host.", values))
        return ExitStatus.success
    }
}
