import CommandKit

struct AccountCommand: Command {
    static let configuration = CommandConfiguration(
        name: "account",
        abstract: "Add, list and remove gitbay accounts.",
        subcommands: [AccountAdd.self, AccountList.self, AccountRemove.self]
    )
}
