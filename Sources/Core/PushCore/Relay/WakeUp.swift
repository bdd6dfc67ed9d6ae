/// A payload handed to the daemon's `Deliver` (by `gbnotifyctl deliver`, or a local relay of
/// one's own): a wake-up for the account it names.
///
/// gitbay's push payload and the bare `{"instance": ..., "user": ...}` both name the account;
/// nothing else in a payload is read. Whoever can call `Deliver` can at most make one of the
/// accounts poll: what is shown comes from that account's own API, so a payload's text, path
/// and badge never have to be trusted.
public struct WakeUp: Sendable, Equatable {
    /// Normalised; parsed with plain http allowed, as it is only compared with the accounts'
    /// instances, never fetched.
    public let instance: GitbayInstance
    public let user: String

    /// Larger than any real alert (APNs itself caps payloads at 4 KiB); refused before parsing.
    public static let maximumSize = 8192

    /// Parses the JSON of one payload (`text.utf8`, `Data` or `[UInt8]`).
    public init(json bytes: some Collection<UInt8>) throws(PayloadError) {
        guard bytes.count <= Self.maximumSize else { throw .tooLarge(byteCount: bytes.count) }
        guard let document = JSONValue(parsing: bytes) else { throw .notJSON }
        guard case .object(let root) = document else { throw .notAnObject }
        let instanceText = try Self.requiredString(root["instance"], field: "instance")
        user = try Self.requiredString(root["user"], field: "user")
        do {
            instance = try GitbayInstance(parsing: instanceText, allowInsecureHTTP: true)
        } catch {
            throw .invalidInstance(error)
        }
    }

    /// The account named: normalised instance and exact username (gitbay usernames are
    /// case-sensitive), so the same username on two instances is two accounts.
    public func account(among accounts: [Account]) throws(PayloadError) -> Account {
        guard let account = accounts.first(where: { $0.instance == instance && $0.username == user }) else {
            throw .noSuchAccount(user: user, instance: instance)
        }
        return account
    }

    private static func requiredString(_ value: JSONValue?, field: String) throws(PayloadError) -> String {
        guard case .string(let text)? = value, !text.isEmpty else { throw .missingField(field) }
        return text
    }
}

/// Why a payload wakes no account. One line each, for a debug line and a `Deliver` caller; what
/// they quote from the payload is cut short and made printable.
public enum PayloadError: Error, Equatable, CustomStringConvertible {
    case tooLarge(byteCount: Int)
    case notJSON
    case notAnObject
    /// Absent, null, empty or not a string; the name is the JSON field.
    case missingField(String)
    case invalidInstance(InstanceError)
    case noSuchAccount(user: String, instance: GitbayInstance)
    /// The daemon is stopping: it wakes nobody any more.
    case stopping

    public var description: String {
        switch self {
        case .tooLarge(let byteCount):
            "the payload is \(byteCount) bytes, over the limit of \(WakeUp.maximumSize)"
        case .notJSON:
            "the payload is not JSON"
        case .notAnObject:
            "the payload is not a JSON object"
        case .missingField(let field):
            "the payload has no usable '\(field)'"
        case .invalidInstance(let error):
            "the payload's instance is unusable: \(error)"
        case .noSuchAccount(let user, let instance):
            "no account here is \(user.displaySafe(truncatedTo: Account.maximumUsernameLength))"
                + " on \(instance.url.displaySafe(truncatedTo: 200))"
        case .stopping:
            "gbnotifyd is stopping"
        }
    }
}
