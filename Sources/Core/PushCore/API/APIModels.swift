// Typed `data` of the commands gbnotify runs, decoded with `APIResult.decode`. Unknown keys are
// ignored, so a newer server adding fields breaks nothing.

/// `whoami`. Over the API `key_scope` is always "full": it does not tell a token's scope.
public struct Whoami: Sendable, Equatable, Decodable {
    public let username: String
    public let admin: Bool
    public let keyScope: String

    public init(username: String, admin: Bool, keyScope: String) {
        self.username = username
        self.admin = admin
        self.keyScope = keyScope
    }

    private enum CodingKeys: String, CodingKey {
        case username, admin
        case keyScope = "key_scope"
    }
}

/// `notifications device add`: `{"id": 7, "status": "registered"}`. The id is kept in the
/// state file and sent back in `device remove ID`, so one that is not positive is no
/// registration: read back, it would make the file unusable (`AccountRecord`).
public struct DeviceRegistration: Sendable, Equatable, Decodable {
    public let id: Int64
    public let status: String

    public init(id: Int64, status: String) {
        self.id = id
        self.status = status
    }

    private enum CodingKeys: String, CodingKey {
        case id, status
    }

    public init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        id = try fields.decodeID(Int64.self, forKey: .id)
        status = try fields.decode(String.self, forKey: .status)
    }
}

/// A row of `notifications device list`. `token` is as the server shows it: the first 8
/// characters and "…", never in full.
public struct Device: Sendable, Equatable, Decodable {
    public let id: Int64
    public let label: String
    public let token: String
    public let added: String

    public init(id: Int64, label: String, token: String, added: String) {
        self.id = id
        self.label = label
        self.token = token
        self.added = added
    }
}

/// `notifications read`: how many rows changed.
public struct ReadResult: Sendable, Equatable, Decodable {
    public let read: Int

    public init(read: Int) {
        self.read = read
    }
}

/// `repo mute|watch|unwatch`: the repository and the state it is in now (`muted`, `watching`,
/// `default`).
public struct WatchState: Sendable, Equatable, Decodable {
    public let repo: String
    public let state: String

    public init(repo: String, state: String) {
        self.repo = repo
        self.state = state
    }
}

/// `issue|mr react`: `{"reaction": NAME, "comment": ID?, "removed": true?}`.
public struct ReactionResult: Sendable, Equatable, Decodable {
    public let reaction: String
    /// Taken back (`--remove`), not set.
    public let removed: Bool

    public init(reaction: String, removed: Bool) {
        self.reaction = reaction
        self.removed = removed
    }

    private enum CodingKeys: String, CodingKey {
        case reaction, removed
    }

    public init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        reaction = try fields.decode(String.self, forKey: .reaction)
        removed = try fields.decodeIfPresent(Bool.self, forKey: .removed) ?? false
    }
}

/// `dashboard`, of which gbnotify needs one key. `unread` is the exact unread inbox count on
/// current servers and absent on older ones; clamped here to `OutsideCount`'s range, whatever
/// number the server sends.
public struct Dashboard: Sendable, Equatable, Decodable {
    public let unread: Int?

    public init(unread: Int?) {
        self.unread = unread.map(OutsideCount.clamped)
    }

    private enum CodingKeys: String, CodingKey {
        case unread
    }

    public init(from decoder: any Decoder) throws {
        unread = try decoder.container(keyedBy: CodingKeys.self).decodeCountIfPresent(forKey: .unread)
    }
}

