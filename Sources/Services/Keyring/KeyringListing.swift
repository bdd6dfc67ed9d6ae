import PushCore

/// An account and the token the keyring holds for it.
public struct StoredAccount: Sendable {
    public let account: Account
    public let token: APIToken
    /// How gbnotify minted the token over SSH; nil for a token it was handed.
    public let mint: SSHMint?

    /// An account as a keyring other than the desktop's hands it over (the tests' in-process
    /// daemon).
    public init(account: Account, token: APIToken, mint: SSHMint? = nil) {
        self.account = account
        self.token = token
        self.mint = mint
    }
}

/// What the keyring holds: the usable accounts, one each, sorted by `Account.id`, and the items
/// that could not be read as accounts, each with the reason.
public struct KeyringListing: Sendable {
    public let accounts: [StoredAccount]
    public let skipped: [SkippedItem]
}

/// A keyring item of the `org.gitbay.Account` schema that is not used, and why. It names the
/// item by label and attributes, never by its secret.
public struct SkippedItem: Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        case missingInstance
        case unparsableInstance(InstanceError)
        case missingUser
        case invalidUser(AccountError)
        case unusableSecret(TokenError)
        /// Another item names the same account (the instance spelled differently, or in another
        /// collection) and was modified later; its token is the one used.
        case olderDuplicate
    }

    public let label: String
    /// The raw `instance` attribute, if there is one.
    public let instance: String?
    /// The raw `user` attribute, if there is one.
    public let user: String?
    public let reason: Reason

    public var description: String {
        var names = [String]()
        if let instance { names.append("instance \(Self.quoted(instance))") }
        if let user { names.append("user \(Self.quoted(user))") }
        let attributes = names.isEmpty ? "" : " (\(names.joined(separator: ", ")))"
        return "keyring item \(Self.quoted(label))\(attributes) skipped: \(reasonText)"
    }

    private var reasonText: String {
        switch reason {
        case .missingInstance:
            "it has no instance attribute"
        case .unparsableInstance(let error):
            "its instance attribute is not a gitbay URL: \(error)"
        case .missingUser:
            "it has no user attribute"
        case .invalidUser(let error):
            "its user attribute is not a gitbay username: \(error)"
        case .unusableSecret(let error):
            "its secret is not a usable API token: \(error)"
        case .olderDuplicate:
            "a newer item holds the token for the same account"
        }
    }

    /// Attributes and labels are anyone's text: one line, bounded, in quotes.
    private static func quoted(_ text: String) -> String {
        "\"\(text.displaySafe(truncatedTo: 100))\""
    }
}

extension KeyringItem {
    enum Reading {
        case account(Account)
        case unusable(SkippedItem.Reason)
    }

    /// The account the item names. The instance may be plain http to any host: the item is the
    /// user's own statement, not something a server or a payload handed us.
    func readAccount() -> Reading {
        guard let instanceText = attributes[KeyringAttribute.instance] else { return .unusable(.missingInstance) }
        let instance: GitbayInstance
        do {
            instance = try GitbayInstance(parsing: instanceText, allowInsecureHTTP: true)
        } catch {
            return .unusable(.unparsableInstance(error))
        }
        guard let user = attributes[KeyringAttribute.user] else { return .unusable(.missingUser) }
        do {
            return .account(try Account(instance: instance, username: user))
        } catch {
            return .unusable(.invalidUser(error))
        }
    }

    func names(_ account: Account) -> Bool {
        guard case .account(let named) = readAccount() else { return false }
        return named == account
    }

    /// Whether the item's attributes of the account schema are exactly `attributes`. Others are
    /// not compared: services add their own (KeePassXC its entry's title, path and UUID).
    func has(_ attributes: [String: String]) -> Bool {
        let names = Set(ItemSchema.account.attributes)
        return self.attributes.filter { names.contains($0.key) } == attributes
    }

    /// Whether the item carries every one of `attributes`, and perhaps more.
    func includes(_ attributes: [String: String]) -> Bool {
        attributes.allSatisfy { self.attributes[$0.key] == $0.value }
    }

    func skipped(because reason: SkippedItem.Reason) -> SkippedItem {
        SkippedItem(
            label: label, instance: attributes[KeyringAttribute.instance], user: attributes[KeyringAttribute.user],
            reason: reason)
    }
}

extension KeyringListing {
    /// Sorts the items into accounts and skipped ones. Of several items for one account, the
    /// most recently modified wins (on a tie, the one spelling the instance as normalised).
    init(reading items: [KeyringItem]) {
        var skipped: [SkippedItem] = []
        var candidates: [Account: [(item: KeyringItem, token: APIToken)]] = [:]
        for item in items {
            switch item.readAccount() {
            case .unusable(let reason):
                skipped.append(item.skipped(because: reason))
            case .account(let account):
                do {
                    candidates[account, default: []].append((item, try APIToken(item.secret)))
                } catch {
                    skipped.append(item.skipped(because: .unusableSecret(error)))
                }
            }
        }
        var accounts: [StoredAccount] = []
        for (account, found) in candidates {
            let ranked = found.sorted { a, b in
                let spelledA = a.item.attributes[KeyringAttribute.instance] == account.instance.url
                let spelledB = b.item.attributes[KeyringAttribute.instance] == account.instance.url
                return (a.item.modified, spelledA ? 1 : 0) > (b.item.modified, spelledB ? 1 : 0)
            }
            accounts.append(StoredAccount(account: account, token: ranked[0].token, mint: SSHMint(attributes: ranked[0].item.attributes)))
            skipped += ranked.dropFirst().map { $0.item.skipped(because: .olderDuplicate) }
        }
        self.accounts = accounts.sorted { $0.account.id < $1.account.id }
        self.skipped = skipped.sorted { $0.description < $1.description }
    }
}
