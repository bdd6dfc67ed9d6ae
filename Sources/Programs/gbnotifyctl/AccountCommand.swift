import CommandKit

struct AccountCommand: Command {
    static let configuration = CommandConfiguration(
        name: "account",
        abstract: "Add, import, list and remove gitbay accounts.",
        subcommands: [AccountAdd.self, AccountImport.self, AccountList.self, AccountRemove.self]
    )
}
