import FoundationEssentials
import Glibc
import PushCore
import SystemCalls

/// `$XDG_STATE_HOME/gbnotifyd/`: what the daemon remembers per account (its device token
/// among it), where the relay stream resumes, and its notifications on screen.
///
/// The directory is 0700 and every file 0600: a device token is an address that a relay would
/// deliver to, so other local users have no business reading it.
public struct StateDirectory: Sendable {
    public let path: String
    /// How long a change waits for the state lock while another process holds it.
    public let lockWait: Duration

    /// The lock is held for one read, change and write of `accounts.json` (at most 4 MiB, one
    /// fsync): milliseconds, a second on a slow disk. A holder that keeps it past 2 s is stuck
    /// (stopped, or on a dead disk); the daemon then keeps its state in memory and saves it
    /// later, and gbnotifyctl says so, rather than either waiting on it.
    public static let defaultLockWait = Duration.seconds(2)

    public init(path: String, lockWait: Duration = defaultLockWait) {
        self.path = path
        self.lockWait = lockWait
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
        lockWait = Self.defaultLockWait
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
        let (tokens, warning) = try deviceTokens(for: [accountID])
        return (tokens[accountID]!, warning)
    }

    /// Each account's device token, as `deviceToken(for:)` makes one, the missing ones made and
    /// saved in one write: a start with a thousand new accounts rewrites the file once, not a
    /// thousand times.
    public func deviceTokens(for accountIDs: [String]) throws(StateError) -> (tokens: [String: DeviceToken], warning: String?) {
        let (tokens, warning) = try updateAccounts { state -> [String: DeviceToken] in
            var tokens: [String: DeviceToken] = [:]
            for accountID in accountIDs {
                var record = state.accounts[accountID] ?? AccountRecord()
                if let saved = record.deviceToken.flatMap({ try? DeviceToken(parsing: $0) }) {
                    tokens[accountID] = saved
                    continue
                }
                // 32 random bytes always make a valid token.
                let token = try! DeviceToken(bytes: Self.randomBytes(DeviceToken.byteCount))
                if record.deviceToken == nil, let legacy = record.deviceID { record.legacyDeviceID = legacy }
                record.deviceToken = token.hex
                record.deviceID = nil
                state.accounts[accountID] = record
                tokens[accountID] = token
            }
            return tokens
        }
        return (tokens, warning)
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
    /// so a killed process never leaves it held). The lock is tried without blocking, again
    /// every 10 ms, for `lockWait` at most: a process holding it forever (stopped, hung) costs
    /// this one a clear error, never its thread.
    private func withLock<Value>(_ body: () throws(StateError) -> Value) throws(StateError) -> Value {
        try create()
        let lockPath = path + "/lock"
        let lock = try AtomicFile.openOrCreate(lockPath)
        defer { try? lock.close() }
        let wait = LockWait(lockWait)
        while case .failure(let error) = valueOrErrno({ flock(lock.rawValue, LOCK_EX | LOCK_NB) }) {
            guard error == .wouldBlock else { throw .io("cannot lock \(lockPath)", errno: error.rawValue) }
            guard wait.pause() else { throw .locked(lockPath, waited: lockWait) }
        }
        return try body()
    }

    /// The standard library's system generator reads getrandom(2) on Linux: the kernel's CSPRNG.
    private static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}

/// The pauses between two tries of a lock, up to a deadline on the monotonic clock. One small
/// type, so that the wait can move onto a main loop's timer.
private struct LockWait {
    static let interval = Duration.milliseconds(10)
    private let deadline: Duration

    init(_ limit: Duration) {
        deadline = Self.now() + limit
    }

    /// Sleeps one interval, or less up to the deadline; false once the deadline has passed.
    func pause() -> Bool {
        let left = deadline - Self.now()
        guard left > .zero else { return false }
        let pause = min(left, Self.interval)
        var time = timespec(tv_sec: Int(pause.components.seconds), tv_nsec: Int(pause.components.attoseconds / 1_000_000_000))
        var remaining = timespec()
        // Interrupted, it sleeps what was left.
        _ = valueOrErrno {
            defer { time = remaining }
            return nanosleep(&time, &remaining)
        }
        return true
    }

    private static func now() -> Duration {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }
}

