/// One line of an ntfy-compatible relay's JSON stream (`GET RELAY/TOPIC/json`):
///
///     {"id":"SLiKI64DOt","time":1635528757,"event":"open","topic":"t"}
///     {"id":"hwQ2YpKdmg","time":1635528741,"event":"message","topic":"t","message":"{...}"}
///     {"id":"DGUDShMCsc","time":1635528787,"event":"keepalive","topic":"t"}
///
/// Only what gbnotify acts on is read; other fields (title, priority, tags...) are ignored, and
/// so is any event it does not know (`poll_request`, `message_delete`, newer ones), so a newer
/// relay cannot break an older daemon.
public enum RelayEvent: Sendable, Equatable {
    /// The relay accepted the subscription, at `time` (Unix seconds by the relay's clock; nil
    /// when the relay did not say).
    case open(time: Int64?)
    /// The relay is alive and the topic quiet; sent every 45 s by default.
    case keepalive
    case message(RelayMessage)
    /// An event this parser does not act on, by its name (bounded, for a debug line).
    case other(String)

    /// Longer lines are dropped unparsed (see `RelayLineSplitter`); ntfy itself caps a message
    /// at 4 KiB and a push payload is at most `PushPayload.maximumSize`.
    public static let maximumLineBytes = 64 * 1024

    /// Parses one line, without its line break.
    public init(line: some Collection<UInt8>) throws(RelayLineError) {
        guard line.count <= Self.maximumLineBytes else { throw .tooLong(byteCount: line.count) }
        guard let document = JSONValue(parsing: line) else { throw .notJSON }
        guard case .object(let fields) = document else { throw .notAnObject }
        guard case .string(let event)? = fields["event"] else { throw .missingField("event") }
        switch event {
        case "open":
            if case .integer(let time)? = fields["time"] { self = .open(time: time) } else { self = .open(time: nil) }
        case "keepalive":
            self = .keepalive
        case "message":
            guard case .string(let id)? = fields["id"] else { throw .missingField("id") }
            guard RelayMessage.isValidID(id) else { throw .invalidID }
            guard case .integer(let time)? = fields["time"] else { throw .missingField("time") }
            guard case .string(let topic)? = fields["topic"] else { throw .missingField("topic") }
            self = .message(RelayMessage(id: id, time: time, topic: topic))
        default:
            self = .other(event.displaySafe(truncatedTo: 40))
        }
    }
}

/// A relay `message` event: what gbnotify resumes from (`id`) and whose account it wakes
/// (`topic`, an account's device token). Its text is not read: whoever can publish to a topic
/// can at most make that account poll.
public struct RelayMessage: Sendable, Equatable {
    /// The relay's id for the message, sent back as `since=` to resume after it.
    public let id: String
    /// Unix seconds, by the relay's clock.
    public let time: Int64
    /// The topic it was published on.
    public let topic: String

    public init(id: String, time: Int64, topic: String) {
        self.id = id
        self.time = time
        self.topic = topic
    }

    /// ntfy's ids are 12 letters and digits; anything of 1 to 64 letters, digits, `-` and `_`
    /// is accepted, which keeps an id safe to put in a URL's query and a state file unescaped.
    public static func isValidID(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count)
            && id.utf8.allSatisfy { ASCII.isLetter($0) || ASCII.isDigit($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
    }
}

/// Why a relay line was dropped. Never quotes the line: it may carry a payload's text.
public enum RelayLineError: Error, Sendable, Equatable, CustomStringConvertible {
    case tooLong(byteCount: Int)
    case notJSON
    case notAnObject
    /// Absent or of the wrong JSON type; the name is the JSON field.
    case missingField(String)
    case invalidID

    public var description: String {
        switch self {
        case .tooLong(let byteCount):
            "the relay line is \(byteCount) bytes or more, over the limit of \(RelayEvent.maximumLineBytes)"
        case .notJSON:
            "the relay line is not JSON"
        case .notAnObject:
            "the relay line is not a JSON object"
        case .missingField(let field):
            "the relay line has no usable '\(field)'"
        case .invalidID:
            "the relay message's id is not 1 to 64 letters, digits, '-' or '_'"
        }
    }
}
