/// The relay stream as `Status()` reports it: part of `DaemonStatus`. With no `relay-url`
/// configured, `url` is null and the rest says nothing happened.
public struct RelayStatus: Codable, Equatable, Sendable {
    /// The relay's normalised URL (never a token; the topic is left out too, as it is the
    /// install token unless configured).
    public var url: String?
    /// Whether a stream is open and answered 200 right now.
    public var connected: Bool
    /// ISO 8601: when the last line (any event) arrived.
    public var lastEvent: String?
    /// The id of the last message handled, the stream's resume point.
    public var lastMessageID: String?
    /// Connection attempts after the first one, failed ones included.
    public var reconnects: Int
    /// Lines that were too long, not JSON, or not a usable event.
    public var droppedLines: Int
    /// Why the last connection ended or failed, in words for the user.
    public var lastError: String?

    public init(
        url: String? = nil, connected: Bool = false, lastEvent: String? = nil, lastMessageID: String? = nil,
        reconnects: Int = 0, droppedLines: Int = 0, lastError: String? = nil
    ) {
        self.url = url
        self.connected = connected
        self.lastEvent = lastEvent
        self.lastMessageID = lastMessageID
        self.reconnects = reconnects
        self.droppedLines = droppedLines
        self.lastError = lastError
    }

    private enum CodingKeys: String, CodingKey {
        case url, connected, reconnects
        case lastEvent = "last_event"
        case lastMessageID = "last_message_id"
        case droppedLines = "dropped_lines"
        case lastError = "last_error"
    }

    /// Read by hand so that a field left out (by another version of the daemon) takes its
    /// default instead of failing the whole status.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        url = try container.decodeIfPresent(String.self, forKey: .url)
        connected = try container.decodeIfPresent(Bool.self, forKey: .connected) ?? false
        lastEvent = try container.decodeIfPresent(String.self, forKey: .lastEvent)
        lastMessageID = try container.decodeIfPresent(String.self, forKey: .lastMessageID)
        reconnects = try container.decodeIfPresent(Int.self, forKey: .reconnects) ?? 0
        droppedLines = try container.decodeIfPresent(Int.self, forKey: .droppedLines) ?? 0
        lastError = try container.decodeIfPresent(String.self, forKey: .lastError)
    }

    /// Written out by hand only so that absent values are `null` rather than missing keys.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(url, forKey: .url)
        try container.encode(connected, forKey: .connected)
        try container.encode(lastEvent, forKey: .lastEvent)
        try container.encode(lastMessageID, forKey: .lastMessageID)
        try container.encode(reconnects, forKey: .reconnects)
        try container.encode(droppedLines, forKey: .droppedLines)
        try container.encode(lastError, forKey: .lastError)
    }

    /// The line `gbnotifyctl status` prints; nil when no relay is configured.
    func renderedLine(clean: (String, Int) -> String) -> String? {
        guard let url else { return nil }
        var parts = [
            connected
                ? Localized.text(
                    "relay {url}: connected", note: "gbnotifyctl status: the push relay's state. {url}: the relay's address.", ["url": clean(url, 200)])
                : Localized.text(
                    "relay {url}: not connected", note: "gbnotifyctl status: the push relay's state. {url}: the relay's address.",
                    ["url": clean(url, 200)])
        ]
        if let lastEvent {
            parts.append(
                Localized.text(
                    "last event {time}", note: "gbnotifyctl status, after the relay's state. {time}: when its last event came.",
                    ["time": clean(lastEvent, 40)]))
        }
        if let lastMessageID {
            parts.append(
                Localized.text(
                    "last message {id}", note: "gbnotifyctl status, after the relay's state. {id}: the relay's id of its last message.",
                    ["id": clean(lastMessageID, 64)]))
        }
        parts.append(
            Localized.plural(
                "{count} reconnect", "{count} reconnects", count: reconnects,
                note: "gbnotifyctl status, after the relay's state: how often the relay's stream was connected again."))
        parts.append(
            Localized.plural(
                "{count} dropped line", "{count} dropped lines", count: droppedLines,
                note: "gbnotifyctl status, after the relay's state: how many lines of its stream were dropped as unreadable."))
        var line = parts.joined(separator: Localized.text(", ", note: "What separates the parts of gbnotifyctl status's relay line."))
        if let lastError, !connected {
            line += "\n  " + Localized.text(
                "relay error: {error}", note: "gbnotifyctl status: the relay's last error. {error}: the error, in English.",
                ["error": clean(lastError, 300)])
        }
        return line
    }
}
