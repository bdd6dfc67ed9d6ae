/// The request that subscribes to a relay topic and resumes where the last one stopped:
/// `GET RELAY/TOPIC/json?since=ID`.
public struct RelaySubscription: Sendable, Equatable {
    public let relay: GitbayInstance
    public let topic: String

    public init(relay: GitbayInstance, topic: String) {
        self.relay = relay
        self.topic = topic
    }

    /// The stream's URL, starting at `position`.
    public func url(from position: RelayPosition) -> String {
        let base = "\(relay.url)/\(topic)/json"
        switch position {
        case .now:
            return base
        case .since(let time):
            return "\(base)?since=\(max(time, 0))"
        case .after(let id):
            return RelayMessage.isValidID(id) ? "\(base)?since=\(id)" : base
        }
    }

    /// Where the stream resumes: the last message id seen for this relay and topic, if `cursor`
    /// was saved for them; a cursor of another relay or topic means nothing here.
    public func resumeID(from cursor: RelayCursor?) -> String? {
        guard let cursor, cursor.relayURL == relay.url, cursor.topic == topic else { return nil }
        return cursor.lastMessageID
    }
}

/// Where a subscription starts.
public enum RelayPosition: Sendable, Equatable {
    /// Only what is published from now on: the first connection ever. Nothing older is replayed
    /// on purpose: a first start learns of the inbox by its first poll, which shows a summary of
    /// what is unread, never a flood of old notices.
    case now
    /// From this Unix time on, by the relay's clock: a reconnect before any message came, from
    /// the time the relay gave in its first `open`, so a drop loses nothing even then.
    case since(Int64)
    /// Right after the message with this id: every reconnect and restart once one came.
    case after(String)
}

/// The persisted position in a relay stream: the id of the last message handled, and the relay
/// and topic it belongs to.
public struct RelayCursor: Codable, Sendable, Equatable {
    public var relayURL: String
    public var topic: String
    public var lastMessageID: String

    public init(relayURL: String, topic: String, lastMessageID: String) {
        self.relayURL = relayURL
        self.topic = topic
        self.lastMessageID = lastMessageID
    }

    private enum CodingKeys: String, CodingKey {
        case relayURL = "relay_url"
        case topic
        case lastMessageID = "last_message_id"
    }
}
