import CommandKit

/// The positional words several commands take, declared once.
enum SharedPositionals {
    static let account = Positional("ACCOUNT", help: "account (USER@HOST or URL)", completion: .account)
    static let item = Positional("OWNER/REPO/(issues|mrs|builds)/N", help: "item (OWNER/REPO/issues/N)", completion: .item)
    static let repository = Positional("OWNER/REPO", help: "repository (OWNER/REPO)", completion: .repository)
}
