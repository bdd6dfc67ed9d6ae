/// What the daemon and `gbnotifyctl` remember about each account between runs, keyed by
/// `Account.id`. Tokens are never here: they live in the keyring only.
public struct PersistedAccounts: Codable, Equatable, Sendable {
    public static let currentVersion = 1
    /// A state file larger than this is not ours: set aside rather than parsed.
    public static let maximumFileSize = 4 << 20

    public var version = currentVersion
    public var accounts: [String: AccountRecord] = [:]

    public init() {}
}

/// Every field is optional, so a file written before a field existed still decodes (the field
/// is then nil), and each program changes only the fields it owns: `gbnotifyctl` and the
/// daemon's registration the first three, the daemon's polling the rest.
///
/// Read back as a server's answer is read (`DecodingBounds`): ids must be positive (the high-
/// water mark at least 0), the ETag must pass the rule a server's does, or the record does not
/// decode and the file is set aside and rebuilt; `unread` is clamped; the registration error is
/// cut to a line's length.
public struct AccountRecord: Codable, Equatable, Sendable {
    /// The account's own device token (`DeviceToken.hex`), its relay topic too.
    public var deviceToken: String?
    /// The id `device add` returned for the device token on this account. Without
    /// `deviceToken`, an earlier version's id for its shared install token.
    public var deviceID: Int64?
    /// An earlier version's device id for its shared install token, kept from when the account
    /// got its own token until the shared token's row is dealt with (`AccountManager.register`).
    public var legacyDeviceID: Int64?
    /// Why registration last failed, in words for `account list` and `status`.
    public var registrationError: String?
    /// The highest inbox id already shown or summed up: a row above it is new. Nil until the
    /// account's first poll, which then shows at most one summary of what is unread instead of
    /// replaying it.
    public var highWater: Int64?
    /// The ETag of the last `notifications list` answer, sent back as `If-None-Match` so an
    /// unchanged inbox costs a 304 with no body, across restarts too.
    public var listETag: String?
    /// The unread count that goes with `listETag`, so that a 304 right after a restart still
    /// gives the badge its number.
    public var unread: Int?

    public init(
        deviceToken: String? = nil, deviceID: Int64? = nil, legacyDeviceID: Int64? = nil, registrationError: String? = nil,
        highWater: Int64? = nil, listETag: String? = nil, unread: Int? = nil
    ) {
        self.deviceToken = deviceToken
        self.deviceID = deviceID
        self.legacyDeviceID = legacyDeviceID
        self.registrationError = registrationError
        self.highWater = highWater
        self.listETag = listETag
        self.unread = unread
    }
}

extension AccountRecord {
    /// The longest registration error kept: one line of `account list`.
    public static let maximumRegistrationErrorLength = 500

    private enum CodingKeys: String, CodingKey {
        case deviceToken, deviceID, legacyDeviceID, registrationError, highWater, listETag, unread
    }

    public init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        deviceToken = try fields.decodeIfPresent(String.self, forKey: .deviceToken)
        deviceID = try fields.decodeIDIfPresent(Int64.self, forKey: .deviceID)
        legacyDeviceID = try fields.decodeIDIfPresent(Int64.self, forKey: .legacyDeviceID)
        registrationError = try fields.decodeIfPresent(String.self, forKey: .registrationError)?
            .truncated(to: Self.maximumRegistrationErrorLength)
        // 0 is a mark below every row: an account whose inbox had none yet.
        highWater = try fields.decodeIfPresent(Int64.self, forKey: .highWater)
        if let highWater, highWater < 0 {
            throw DecodingError.dataCorruptedError(forKey: .highWater, in: fields, debugDescription: "a negative mark")
        }
        listETag = try fields.decodeIfPresent(String.self, forKey: .listETag)
        if let listETag, !APIResult.isUsableETag(listETag) {
            throw DecodingError.dataCorruptedError(forKey: .listETag, in: fields, debugDescription: "not an ETag a server may send")
        }
        unread = try fields.decodeCountIfPresent(forKey: .unread)
    }
}
