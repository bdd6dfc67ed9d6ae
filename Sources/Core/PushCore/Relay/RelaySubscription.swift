/// The request that subscribes to every account's relay topic at once and resumes where the
/// last one stopped: `GET RELAY/T1,T2,.../json?since=ID` (ntfy's multi-topic form). Each
/// account's topic is its device token.
public struct RelaySubscription: Sendable, Equatable {
    public let relay: GitbayInstance
    /// Sorted, each once, never empty.
    public let topics: [String]

    /// Nil without topics: with no account there is nothing to listen to.
    public init?(relay: GitbayInstance, topics: some Sequence<String>) {
        let sorted = Set(topics).sorted()
        guard !sorted.isEmpty else { return nil }
        self.relay = relay
        self.topics = sorted
    }

    /// The stream's URL, starting at `position`.
    public func url(from position: RelayPosition) -> String {
        let base = "\(relay.url)/\(topics.joined(separator: ","))/json"
        switch position {
        case .now:
            return base
        case .since(let time):
            return "\(base)?since=\(max(time, 0))"
        case .after(let id):
            return RelayMessage.isValidID(id) ? "\(base)?since=\(id)" : base
        }
    }

    /// Where the stream resumes: the last message id seen on this relay, if `cursor` was saved
    /// for it; a cursor of another relay means nothing here. Message ids are the relay's, not a
    /// topic's, so the cursor holds when accounts come and go.
    public func resumeID(from cursor: RelayCursor?) -> String? {
        guard let cursor, cursor.relayURL == relay.url else { return nil }
        return cursor.lastMessageID
    }
}

/// Where a subscription starts.
public enum RelayPosition: Sendable, Equatable {
    /// Only what is published from now on: the first connection ever. Nothing older is replayed
    /// on purpose: a first start learns of the inbox by its first poll.
    case now
    /// From this Unix time on, by the relay's clock: a reconnect before any message came, from
    /// the time the relay gave in its first `open`, so a drop loses nothing even then.
    case since(Int64)
    /// Right after the message with this id: every reconnect and restart once one came.
    case after(String)
}

/// The persisted position in a relay stream: the id of the last message handled, and the relay
/// it belongs to.
public struct RelayCursor: Codable, Sendable, Equatable {
    public var relayURL: String
    public var lastMessageID: String

    public init(relayURL: String, lastMessageID: String) {
        self.relayURL = relayURL
        self.lastMessageID = lastMessageID
    }

    private enum CodingKeys: String, CodingKey {
        case relayURL = "relay_url"
        case lastMessageID = "last_message_id"
    }
}
