/// How an account's token was minted, when gbnotify minted it over SSH: the token's name on the
/// server and where to reach it, so that `account remove` can revoke it and `doctor` can check
/// that the host still answers with the key. Kept beside the token in its keyring item, as
/// attributes (none of it is secret): `token-name`, `ssh-remote` (`USER@HOST[:PORT]`) and,
/// when there are any, `ssh-options` (the words quoted as for a shell).
public struct SSHMint: Sendable, Equatable {
    public let tokenName: String
    public let remote: SSHRemote

    public init(tokenName: String, remote: SSHRemote) {
        self.tokenName = tokenName
        self.remote = remote
    }

    public static let tokenNameAttribute = "token-name"
    public static let remoteAttribute = "ssh-remote"
    public static let optionsAttribute = "ssh-options"
    public static let attributeNames = [tokenNameAttribute, remoteAttribute, optionsAttribute]

    public var attributes: [String: String] {
        var attributes = [Self.tokenNameAttribute: tokenName, Self.remoteAttribute: remote.description]
        if !remote.options.isEmpty { attributes[Self.optionsAttribute] = ShellWords.join(remote.options) }
        return attributes
    }

    /// The item's record of a minting; nil when it has none, or one that does not read back
    /// (written by hand, say): such a token is the user's to revoke, as a pasted one is.
    public init?(attributes: [String: String]) {
        guard let name = attributes[Self.tokenNameAttribute], SSHAnswer.checkedTokenName(name) != nil,
              let remoteText = attributes[Self.remoteAttribute]
        else { return nil }
        let options: [String]
        if let optionsText = attributes[Self.optionsAttribute] {
            guard let words = try? ShellWords.split(optionsText) else { return nil }
            options = words
        } else {
            options = []
        }
        guard let remote = try? SSHRemote(parsing: remoteText, options: options) else { return nil }
        self.init(tokenName: name, remote: remote)
    }
}
