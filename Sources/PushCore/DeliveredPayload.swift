/// What one payload handed to the daemon (a relay message's `message`, a `Deliver` argument)
/// asks for: a notice to show, or a wake-up.
///
/// A wake-up names only `instance` and `user` (no `path`, no `aps`): a relay that carries no
/// content says "something happened for this account", and the account polls at once. Other
/// fields are ignored in both shapes, as a newer server may add some.
public enum DeliveredPayload: Sendable, Equatable {
    case notice(PushPayload)
    /// `instance` is normalised, as in `PushPayload`.
    case wakeUp(instance: GitbayInstance, user: String)

    /// Refuses more than `PushPayload.maximumSize` bytes before parsing anything.
    public init(json bytes: some Collection<UInt8>) throws(PayloadError) {
        guard bytes.count <= PushPayload.maximumSize else { throw .tooLarge(byteCount: bytes.count) }
        guard let document = JSONValue(parsing: bytes) else { throw .notJSON }
        guard case .object(let root) = document else { throw .notAnObject }
        guard Self.isAbsent(root["path"]), Self.isAbsent(root["aps"]) else {
            self = .notice(try PushPayload(root: root))
            return
        }
        let instanceText = try PushPayload.requiredString(root["instance"], field: "instance")
        let user = try PushPayload.requiredString(root["user"], field: "user")
        do {
            self = .wakeUp(instance: try GitbayInstance(parsing: instanceText, allowInsecureHTTP: true), user: user)
        } catch {
            throw .invalidInstance(error)
        }
    }

    private static func isAbsent(_ value: JSONValue?) -> Bool {
        value == nil || value == .null
    }
}
