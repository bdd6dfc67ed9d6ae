import FoundationEssentials
import Glibc
import PushCore

/// `$XDG_STATE_HOME/gbnotifyd/`: the install token and what the daemon remembers per account.
///
/// The directory is 0700 and every file 0600: the install token is an address that a relay
/// would deliver to, so other local users have no business reading it.
public struct StateDirectory: Sendable {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// The directory the XDG Base Directory spec gives for state, for an environment.
    public init(environment: [String: String]) throws(StateError) {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            path = state + "/gbnotifyd"
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            path = home + "/.local/state/gbnotifyd"
        } else {
            throw .noStateDirectory
        }
    }

    var installTokenPath: String { path + "/install-token" }
    var accountsPath: String { path + "/accounts.json" }

    /// Creates the directory (and missing parents) with mode 0700.
    public func create() throws(StateError) {
        var built = ""
        for component in path.split(separator: "/") {
            built += "/" + component
            if mkdir(built, 0o700) != 0 && errno != EEXIST {
                throw .io("cannot create \(built)", errno: errno)
            }
        }
        // An existing directory keeps whatever mode it had; tighten ours.
        chmod(path, 0o700)
    }

    /// The install token, created on first use from the kernel's random source.
    /// A token file that does not parse is set aside and replaced: registration repeats with the
    /// new token, which the server treats as a new device.
    public func installToken() throws(StateError) -> (token: InstallToken, warning: String?) {
        // Locked, so a daemon starting while `gbnotifyctl account add` runs cannot make a second token.
        try withLock { () throws(StateError) in try readOrCreateInstallToken() }
    }

    private func readOrCreateInstallToken() throws(StateError) -> (token: InstallToken, warning: String?) {
        var warning: String?
        if let bytes = try AtomicFile.read(installTokenPath, limit: 4096) {
            if let token = try? InstallToken(parsing: String(decoding: bytes, as: UTF8.self)) {
                return (token, nil)
            }
            let aside = try AtomicFile.setAside(installTokenPath, suffix: Self.timestamp())
            warning = "the install token file was not a token; kept it as \(aside) and made a new one"
        }
        // 32 random bytes always make a valid token.
        let token = try! InstallToken(bytes: Self.randomBytes(32))
        try AtomicFile.write(Array((token.hex + "\n").utf8), to: installTokenPath)
        return (token, warning)
    }

    /// Everything remembered per account; an unreadable file is set aside and an empty state
    /// returned, which the daemon treats as a first sight (a summary, never a replay).
    public func loadAccounts() throws(StateError) -> (state: PersistedAccounts, warning: String?) {
        guard let bytes = try AtomicFile.read(accountsPath, limit: PersistedAccounts.maximumFileSize) else {
            return (PersistedAccounts(), nil)
        }
        if let state = try? JSONDecoder().decode(PersistedAccounts.self, from: Data(bytes)),
           state.version == PersistedAccounts.currentVersion {
            return (state, nil)
        }
        let aside = try AtomicFile.setAside(accountsPath, suffix: Self.timestamp())
        return (PersistedAccounts(), "the account state file was unreadable; kept it as \(aside) and started afresh")
    }

    /// Reads, changes and writes the account state under an exclusive lock, so `gbnotifyctl` and
    /// the daemon, which each change their own fields, never overwrite each other's.
    @discardableResult
    public func updateAccounts<Result>(
        _ change: (inout PersistedAccounts) -> Result
    ) throws(StateError) -> (result: Result, warning: String?) {
        try withLock { () throws(StateError) in
            var (state, warning) = try loadAccounts()
            let before = state
            let result = change(&state)
            if state != before {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                // Encoding plain structs of strings and integers cannot fail.
                let bytes = (try? encoder.encode(state)) ?? Data()
                try AtomicFile.write(Array(bytes), to: accountsPath)
            }
            return (result, warning)
        }
    }

    /// Runs `body` holding an exclusive lock on the state directory (flock, released on close,
    /// so a killed process never leaves it held).
    private func withLock<Value>(_ body: () throws(StateError) -> Value) throws(StateError) -> Value {
        try create()
        let lock = open(path + "/lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lock >= 0 else { throw .io("cannot open \(path)/lock", errno: errno) }
        defer { close(lock) }
        while flock(lock, LOCK_EX) != 0 {
            guard errno == EINTR else { throw .io("cannot lock \(path)/lock", errno: errno) }
        }
        return try body()
    }

    /// The standard library's system generator reads getrandom(2) on Linux: the kernel's CSPRNG.
    private static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    private static func timestamp() -> String {
        String(Int(Date().timeIntervalSince1970))
    }
}
