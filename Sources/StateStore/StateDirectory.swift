import FoundationEssentials
import Glibc
import PushCore

/// `$XDG_STATE_HOME/gbnotifyd/`: what the daemon remembers per account (its device token
/// among it), where the relay stream resumes, and its notifications on screen.
///
/// The directory is 0700 and every file 0600: a device token is an address that a relay would
/// deliver to, so other local users have no business reading it.
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

    /// Where earlier versions kept the one token they registered with every account; read
    /// only to move accounts off it (`legacyInstallToken`).
    var installTokenPath: String { path + "/install-token" }
    var accountsFile: JSONStateFile<PersistedAccounts> {
        JSONStateFile(
            path: path + "/accounts.json", limit: PersistedAccounts.maximumFileSize,
            afresh: "every account starts afresh (a summary of what is unread, never a replay)")
    }

    /// Creates the directory (and missing parents) with mode 0700, and checks that it is safe
    /// to keep state in: the user's own, a real directory, and writable by no one else, or
    /// another local user could plant a state file (a relay cursor, a notification to adopt).
    public func create() throws(StateError) {
        var built = ""
        for component in path.split(separator: "/") {
            built += "/" + component
            if mkdir(built, 0o700) != 0 && errno != EEXIST {
                throw .io("cannot create \(built)", errno: errno)
            }
        }
        var info = stat()
        guard lstat(path, &info) == 0 else { throw .io("cannot inspect \(path)", errno: errno) }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw .unsafeDirectory(path, "it is not a directory (a symbolic link, or a file); remove it")
        }
        guard info.st_uid == geteuid() else {
            throw .unsafeDirectory(path, "it belongs to user id \(info.st_uid), not to you (\(geteuid())); remove it")
        }
        guard info.st_mode & 0o022 == 0 else {
            throw .unsafeDirectory(path, "other users may write to it (mode \(String(info.st_mode & 0o777, radix: 8))); run: chmod 700 \(path)")
        }
    }

    /// The install token of an earlier version, if its file is still there; nil when there is
    /// none or it is not a token.
    public func legacyInstallToken() throws(StateError) -> DeviceToken? {
        guard let bytes = try AtomicFile.read(installTokenPath, limit: 4096) else { return nil }
        return try? DeviceToken(parsing: String(decoding: bytes, as: UTF8.self))
    }

    /// `account`'s device token, made from the kernel's random source and saved on first use,
    /// before anything is registered with it, so that a crash half-way never leaves two. A
    /// device id of an earlier version (its shared install token's) moves to `legacyDeviceID`.
    public func deviceToken(for accountID: String) throws(StateError) -> (token: DeviceToken, warning: String?) {
        let (token, warning) = try updateAccounts { state -> DeviceToken in
            var record = state.accounts[accountID] ?? AccountRecord()
            if let saved = record.deviceToken.flatMap({ try? DeviceToken(parsing: $0) }) { return saved }
            // 32 random bytes always make a valid token.
            let token = try! DeviceToken(bytes: Self.randomBytes(DeviceToken.byteCount))
            if record.deviceToken == nil, let legacy = record.deviceID { record.legacyDeviceID = legacy }
            record.deviceToken = token.hex
            record.deviceID = nil
            state.accounts[accountID] = record
            return token
        }
        return (token, warning)
    }

    /// Everything remembered per account; an unreadable file is set aside and an empty state
    /// returned, which the daemon treats as a first sight (a summary, never a replay).
    public func loadAccounts() throws(StateError) -> (state: PersistedAccounts, warning: String?) {
        let (state, warning) = try accountsFile.load { $0.version == PersistedAccounts.currentVersion }
        return (state ?? PersistedAccounts(), warning)
    }

    /// Reads, changes and writes the account state under an exclusive lock, so `gbnotifyctl` and
    /// the daemon, which each change their own fields, never overwrite each other's.
    @discardableResult
    public func updateAccounts<Result>(
        _ change: (inout PersistedAccounts) -> Result
    ) throws(StateError) -> (result: Result, warning: String?) {
        try update(accountsFile, loading: loadAccounts, change)
    }

    /// Reads a state file with `load`, changes it and writes it back if it changed, under the
    /// directory's lock.
    func update<Value: Equatable, Result>(
        _ file: JSONStateFile<Value>, loading load: () throws(StateError) -> (Value, String?),
        _ change: (inout Value) -> Result
    ) throws(StateError) -> (result: Result, warning: String?) {
        try withLock { () throws(StateError) in
            var (value, warning) = try load()
            let before = value
            let result = change(&value)
            if value != before { try file.save(value) }
            return (result, warning)
        }
    }

    /// Runs `body` holding an exclusive lock on the state directory (flock, released on close,
    /// so a killed process never leaves it held).
    private func withLock<Value>(_ body: () throws(StateError) -> Value) throws(StateError) -> Value {
        try create()
        let lock = open(path + "/lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
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
}
