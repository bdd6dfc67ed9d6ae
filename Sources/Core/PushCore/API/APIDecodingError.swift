/// Why `APIResult.decode` gave no value.
public enum APIDecodingError: Error, Equatable, CustomStringConvertible {
    /// The answer was not a success; it is carried whole so the caller can still switch on it.
    case notSuccess(APIResult)
    /// The data did not have the expected shape: `type` is what was asked for, `detail` where
    /// and how it differed.
    case unexpectedShape(type: String, detail: String)

    public var description: String {
        switch self {
        case .notSuccess(let result):
            "\(result)"
        case .unexpectedShape(let type, let detail):
            "the server's answer does not fit \(type): \(detail)"
        }
    }

    init(unexpected type: Any.Type, _ error: any Error) {
        let detail: String
        switch error {
        case DecodingError.typeMismatch(let expected, let context):
            detail = "\(Self.location(context.codingPath)): expected \(expected)"
        case DecodingError.valueNotFound(let expected, let context):
            detail = "\(Self.location(context.codingPath)): null where \(expected) is required"
        case DecodingError.keyNotFound(let key, let context):
            detail = "\(Self.location(context.codingPath + [key])): missing"
        case DecodingError.dataCorrupted(let context) where !context.codingPath.isEmpty:
            detail = "\(Self.location(context.codingPath)): \(context.debugDescription)"
        default:
            // JSONDecoder reports a number that does not fit its field (1.5 for an id) this way.
            detail = "a value does not fit its field"
        }
        self = .unexpectedShape(type: String(describing: type), detail: detail.truncated(to: APIResult.maximumMessageLength))
    }

    /// `data.items[3].created_at`, or "the top level".
    private static func location(_ path: [any CodingKey]) -> String {
        guard !path.isEmpty else { return "the top level" }
        var text = ""
        for key in path {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += (text.isEmpty ? "" : ".") + key.stringValue
            }
        }
        return text
    }
}
