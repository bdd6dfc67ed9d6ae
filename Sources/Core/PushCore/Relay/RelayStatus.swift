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
        var parts = ["relay \(clean(url, 200)): \(connected ? "connected" : "not connected")"]
        if let lastEvent { parts.append("last event \(clean(lastEvent, 40))") }
        if let lastMessageID { parts.append("last message \(clean(lastMessageID, 64))") }
        parts.append("\(reconnects) reconnect\(reconnects == 1 ? "" : "s")")
        parts.append("\(droppedLines) dropped line\(droppedLines == 1 ? "" : "s")")
        var line = parts.joined(separator: ", ")
        if let lastError, !connected { line += "\n  relay error: \(clean(lastError, 300))" }
        return line
    }
}
