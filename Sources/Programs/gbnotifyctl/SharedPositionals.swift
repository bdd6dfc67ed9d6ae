import CommandKit
import PushCore

/// The positional words several commands take, declared once.
enum SharedPositionals {
    static let account = Positional("ACCOUNT", help: "account (USER@HOST or URL)", completion: .account)
    static let item = Positional("OWNER/REPO/(issues|mrs|builds)/N", help: "item (OWNER/REPO/issues/N)", completion: .item)
    static let repository = Positional("OWNER/REPO", help: "repository (OWNER/REPO)", completion: .repository)

    /// The usage error for a path that names no item, as `show` and `read` say it.
    static func namesNoItem(_ path: String) -> String {
        Localized.text(
            "'{path}' names no item; use OWNER/REPO/issues/N, OWNER/REPO/mrs/N or OWNER/REPO/builds/N",
            note: "A usage error of gbnotifyctl. {path}: what was given. The forms after \"use\" stay as they are.", ["path": path.displaySafe(truncatedTo: 200)])
    }
}
