/// What a keyring call is waiting for while the Secret Service has not answered: the keyring
/// knows which step it is on, and so what the user would have to answer. One word for scripts
/// (`Status()`'s `keyring_wait`); `spoken` says what to do in the session's language, and
/// `description` in English for log lines.
public enum KeyringWait: String, Sendable, Hashable, Codable, CustomStringConvertible {
    /// A collection is locked: the service's unlock dialog (KeePassXC shows its own inside the
    /// search itself).
    case unlock
    /// The collection is unlocked but the items are not, for this program: the service asks
    /// whether it may read them (KeePassXC's access dialog).
    case access
    /// A deletion the service asks the user to confirm (KeePassXC's "delete entry?" dialog).
    case confirmation
    /// No answer yet from a call that shows no prompt the keyring knows of.
    case answer

    /// What to do, as one line a program can print after its own name; in English.
    public var description: String {
        Localized.inEnglish { spoken }
    }

    /// `description` in the session's language, for a person.
    public var spoken: String {
        switch self {
        case .unlock:
            Localized.text(
                "waiting for the keyring to be unlocked: type its password in the keyring's unlock dialog (close the dialog to give up)",
                note: "Said by gbnotifyctl (after its name) and gbnotifyctl status while the keyring waits for the user. Use the desktops' own words for the dialog.")
        case .access:
            Localized.text(
                "waiting for the keyring to allow access: choose Allow in the keyring's access dialog (Deny refuses)",
                note: "Said by gbnotifyctl (after its name) and gbnotifyctl status while the keyring waits for the user. Allow and Deny: the dialog's buttons, as the keyring names them.")
        case .confirmation:
            Localized.text(
                "waiting for the keyring: confirm the deletion in the keyring's dialog",
                note: "Said by gbnotifyctl (after its name) and gbnotifyctl status while the keyring waits for the user.")
        case .answer:
            Localized.text(
                "waiting for the keyring to answer; if it shows a dialog, answer it",
                note: "Said by gbnotifyctl (after its name) and gbnotifyctl status while the keyring has not answered yet.")
        }
    }
}
