/// Where a gitbay instance answers over SSH, as the gitbay CLI reaches it:
/// `ssh [-p PORT] [SSH_OPTIONS...] USER@HOST -- COMMAND`. The user's own ssh config, agent and
/// known hosts do the rest; nothing here weakens them.
public struct SSHRemote: Sendable, Equatable, CustomStringConvertible {
    /// `git` unless the gitbay CLI's config names another.
    public static let defaultUser = "git"

    public let user: String
    /// A name or address as ssh takes it, or a `Host` alias of the user's ssh config.
    public let host: String
    /// Nil: ssh's own choice (22, or the ssh config's `Port`).
    public let port: Int?
    /// Passed to ssh as they are, like the gitbay CLI's `ssh_options`.
    public let options: [String]

    public init(user: String = SSHRemote.defaultUser, host: String, port: Int? = nil, options: [String] = []) throws(SSHRemoteError) {
        // A leading "-" would reach ssh as an option; whitespace, "@" and control characters
        // have no place in a user or host name.
        guard !user.isEmpty, !user.hasPrefix("-"), user.utf8.allSatisfy({ ASCII.isVisible($0) && $0 != UInt8(ascii: "@") }) else {
            throw .badUser(user.displaySafe(truncatedTo: 64))
        }
        // Brackets are the URL's and `description`'s way of writing an IPv6 address, never
        // part of one.
        guard !host.isEmpty, !host.hasPrefix("-"), host.utf8.count <= 255,
              host.utf8.allSatisfy({ ASCII.isVisible($0) && !"@[]".utf8.contains($0) })
        else { throw .badHost(host.displaySafe(truncatedTo: 64)) }
        if let port, !(1...65535).contains(port) { throw .badPort(String(port)) }
        self.user = user
        self.host = host
        self.port = port
        self.options = options
    }

    /// `[USER@]HOST[:PORT]`, as `account add --ssh` takes it and `description` writes it; an IPv6
    /// address with a port goes in brackets (`git@[::1]:2222`).
    public init(parsing text: String, options: [String] = []) throws(SSHRemoteError) {
        var rest = Substring(text)
        var user = Self.defaultUser
        if let at = rest.lastIndex(of: "@") {
            user = String(rest[..<at])
            rest = rest[rest.index(after: at)...]
        }
        var host = String(rest)
        var port: Int?
        if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
            host = String(rest[rest.index(after: rest.startIndex)..<close])
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw .badHost(text.displaySafe(truncatedTo: 64)) }
                port = try Self.port(after.dropFirst())
            }
        } else if let colon = rest.firstIndex(of: ":"), rest.filter({ $0 == ":" }).count == 1 {
            host = String(rest[..<colon])
            port = try Self.port(rest[rest.index(after: colon)...])
        }
        try self.init(user: user, host: host, port: port, options: options)
    }

    private static func port(_ text: Substring) throws(SSHRemoteError) -> Int {
        guard text.utf8.count <= 5, let value = ASCII.decimalValue(text.utf8), (1...65535).contains(value) else {
            throw .badPort(String(text).displaySafe(truncatedTo: 16))
        }
        return Int(value)
    }

    /// `USER@HOST[:PORT]`, which `init(parsing:)` reads back: a host with a colon (IPv6) goes in
    /// brackets.
    public var description: String {
        let shown = host.contains(":") ? "[\(host)]" : host
        return port.map { "\(user)@\(shown):\($0)" } ?? "\(user)@\(shown)"
    }

    /// ssh's argv for `command` run on the server: batch mode, so that nothing ever prompts (no
    /// password, no passphrase, no unknown host key to accept), and the remote command as the one
    /// string the server splits, after `--` so that ssh reads none of it as its own options.
    public func argv(running command: [String]) -> [String] {
        ["ssh", "-o", "BatchMode=yes"] + connectionArguments + ["--", ShellWords.join(command)]
    }

    /// The command a person runs by hand for the same thing: ssh's argv without batch mode, quoted
    /// for their shell (so the remote command, already quoted for the server, is quoted twice).
    public func commandLine(running command: [String]) -> String {
        ShellWords.join(["ssh"] + connectionArguments + ["--", ShellWords.join(command)])
    }

    private var connectionArguments: [String] {
        (port.map { ["-p", String($0)] } ?? []) + options + ["\(user)@\(host)"]
    }
}

public enum SSHRemoteError: Error, Equatable, CustomStringConvertible {
    case badUser(String)
    case badHost(String)
    case badPort(String)

    public var description: String {
        switch self {
        case .badUser(let user): "\"\(user)\" is not an SSH user name"
        case .badHost(let host): "\"\(host)\" is not an SSH host; give USER@HOST or USER@HOST:PORT"
        case .badPort(let port): "\"\(port)\" is not a port (1 to 65535)"
        }
    }
}
