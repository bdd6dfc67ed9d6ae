/// One push notice as gitbay sends it to a device (the APNs alert) and a relay hands it on.
///
///     {"aps": {"alert": {"title": "krz/gitbay", "body": "cmc opened issue #12"},
///              "badge": 3, "thread-id": "krz/gitbay"},
///      "path": "krz/gitbay/issues/12", "instance": "https://gitbay.org", "user": "cmc"}
///
/// `instance`, `user` and `path` are required: a payload without them cannot be routed to an
/// account and is dropped, never guessed at. Everything under `aps` is optional.
public struct PushPayload: Sendable, Equatable {
    public let title: String
    public let body: String
    /// The recipient's unread count when the server sent it; older servers omit it.
    public let badge: Int?
    public let threadID: String?
    /// The web path as sent; `NotificationDestination` decides whether it is routable.
    public let path: String
    /// The server's `site_url`, normalised. Parsed with plain http allowed: it is only compared
    /// with the accounts' instances, never fetched.
    public let instance: GitbayInstance
    public let user: String

    /// Larger than any real alert (APNs itself caps payloads at 4 KiB); refused before parsing.
    public static let maximumSize = 8192

    /// Parses the JSON of one payload: a relay line's `message`, a `Deliver` argument
    /// (`text.utf8`), `Data` or `[UInt8]`.
    public init(json bytes: some Collection<UInt8>) throws(PayloadError) {
        guard bytes.count <= Self.maximumSize else { throw .tooLarge(byteCount: bytes.count) }
        guard let document = JSONValue(parsing: bytes) else { throw .notJSON }
        guard case .object(let root) = document else { throw .notAnObject }
        try self.init(root: root)
    }

    /// The payload in an object already parsed (and size-checked) by `DeliveredPayload`, so a
    /// delivered notice is parsed once.
    init(root: [String: JSONValue]) throws(PayloadError) {
        let instanceText = try Self.requiredString(root["instance"], field: "instance")
        user = try Self.requiredString(root["user"], field: "user")
        path = try Self.requiredString(root["path"], field: "path")
        do {
            instance = try GitbayInstance(parsing: instanceText, allowInsecureHTTP: true)
        } catch {
            throw .invalidInstance(error)
        }

        let aps = try Self.optionalObject(root["aps"], field: "aps")
        let alert = try Self.optionalObject(aps?["alert"], field: "aps.alert")
        title = try Self.optionalString(alert?["title"], field: "aps.alert.title") ?? ""
        body = try Self.optionalString(alert?["body"], field: "aps.alert.body") ?? ""
        threadID = try Self.optionalString(aps?["thread-id"], field: "aps.thread-id")
        switch aps?["badge"] {
        case nil, .null?:
            badge = nil
        case .integer(let value)?:
            guard value >= 0 else { throw .negativeBadge }
            guard let fitting = Int(exactly: value) else { throw .wrongType(field: "aps.badge") }
            badge = fitting
        default:
            throw .wrongType(field: "aps.badge")
        }
    }

    // Absent and null mean the same: the field was not given.

    static func requiredString(_ value: JSONValue?, field: String) throws(PayloadError) -> String {
        guard let text = try optionalString(value, field: field), !text.isEmpty else {
            throw .missingField(field)
        }
        return text
    }

    private static func optionalString(_ value: JSONValue?, field: String) throws(PayloadError) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?: return text
        default: throw .wrongType(field: field)
        }
    }

    private static func optionalObject(
        _ value: JSONValue?, field: String
    ) throws(PayloadError) -> [String: JSONValue]? {
        switch value {
        case nil, .null?: return nil
        case .object(let members)?: return members
        default: throw .wrongType(field: field)
        }
    }
}

/// Why bytes are not a push payload.
public enum PayloadError: Error, Equatable, CustomStringConvertible {
    case tooLarge(byteCount: Int)
    case notJSON
    case notAnObject
    /// Absent, null or empty; the name is the JSON field.
    case missingField(String)
    /// Present with the wrong JSON type; the name is a dotted path such as "aps.badge".
    case wrongType(field: String)
    case negativeBadge
    case invalidInstance(InstanceError)

    public var description: String {
        switch self {
        case .tooLarge(let byteCount):
            "the push payload is \(byteCount) bytes, over the limit of \(PushPayload.maximumSize)"
        case .notJSON:
            "the push payload is not JSON"
        case .notAnObject:
            "the push payload is not a JSON object"
        case .missingField(let field):
            "the push payload has no '\(field)'"
        case .wrongType(let field):
            "the push payload's '\(field)' has the wrong type"
        case .negativeBadge:
            "the push payload's badge is negative"
        case .invalidInstance(let error):
            "the push payload's instance is unusable: \(error)"
        }
    }
}
