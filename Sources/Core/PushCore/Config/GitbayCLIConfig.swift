/// The gitbay CLI's config (`$XDG_CONFIG_HOME/gitbay/config.toml`), as far as `gbnotifyctl
/// account import` reads it: a top-level `default` and `[instances.NAME]` tables with `host`,
/// `port`, `user` and `ssh_options`.
///
/// It is read by a reader of its own for that subset of TOML, not through a TOML library:
/// Debian has no C one, and the C++ one (cpptoml) reports a syntax error with a C++ exception,
/// which Swift cannot catch, so a typo in the user's file would end gbnotifyctl. The subset:
/// comments, `key = value` with bare or quoted keys, `[instances.NAME]` headers, and values
/// that are strings (basic and literal, one line), decimal integers, booleans and arrays of
/// strings (over several lines too). Anything else is an error naming its line.
public struct GitbayCLIConfig: Sendable, Equatable {
    public struct Instance: Sendable, Equatable {
        public let name: String
        public let remote: SSHRemote
        /// Where its table starts.
        public let line: Int

        public init(name: String, remote: SSHRemote, line: Int) {
            self.name = name
            self.remote = remote
            self.line = line
        }
    }

    /// The `default` key: the instance the CLI uses outside a repository of a known instance.
    public let defaultInstance: String?
    /// In the order of the file.
    public let instances: [Instance]

    /// Larger than any real config by far; a bigger file is refused unread.
    public static let maximumSize = 256 * 1024

    public static func parse(_ text: String) throws(GitbayConfigError) -> GitbayCLIConfig {
        guard text.utf8.count <= maximumSize else {
            throw GitbayConfigError(line: 0, "the file is larger than \(maximumSize / 1024) KiB; is it the gitbay CLI's config?")
        }
        var reader = TOMLReader(Array(text.utf8))
        let document = try reader.document()
        var defaultInstance: String?
        if let entry = document.topLevel["default"] {
            guard case .string(let name) = entry.value else { throw GitbayConfigError(line: entry.line, "default must be a string") }
            defaultInstance = name
        }
        var instances: [Instance] = []
        for table in document.instances {
            instances.append(try instance(table))
        }
        return GitbayCLIConfig(defaultInstance: defaultInstance, instances: instances)
    }

    private static func instance(_ table: TOMLReader.Table) throws(GitbayConfigError) -> Instance {
        func string(_ key: String) throws(GitbayConfigError) -> (String, Int)? {
            guard let entry = table.entries[key] else { return nil }
            guard case .string(let value) = entry.value else { throw GitbayConfigError(line: entry.line, "\(key) must be a string") }
            return (value, entry.line)
        }
        guard let (host, hostLine) = try string("host") else {
            throw GitbayConfigError(line: table.line, "[instances.\(table.name.displaySafe(truncatedTo: 64))] has no host")
        }
        var port: Int?
        if let entry = table.entries["port"] {
            guard case .integer(let value) = entry.value, (1...65535).contains(value) else {
                throw GitbayConfigError(line: entry.line, "port must be an integer from 1 to 65535")
            }
            port = Int(value)
        }
        let user = try string("user")
        var options: [String] = []
        if let entry = table.entries["ssh_options"] {
            guard case .strings(let values) = entry.value else {
                throw GitbayConfigError(line: entry.line, "ssh_options must be an array of strings")
            }
            options = values
        }
        do {
            let remote = try SSHRemote(user: user?.0 ?? SSHRemote.defaultUser, host: host, port: port, options: options)
            return Instance(name: table.name, remote: remote, line: table.line)
        } catch {
            let line = switch error {
            case .badUser: user?.1 ?? table.line
            case .badHost: hostLine
            case .badPort: table.entries["port"]?.line ?? table.line
            }
            throw GitbayConfigError(line: line, "\(error)")
        }
    }
}

/// What is wrong with the gitbay CLI's config, and on which line (0: the file as a whole).
public struct GitbayConfigError: Error, Equatable, CustomStringConvertible {
    public let line: Int
    public let message: String

    init(line: Int, _ message: String) {
        self.line = line
        self.message = message
    }

    public var description: String { line > 0 ? "line \(line): \(message)" : message }
}
