/// Why the config file cannot be used: where (line, section, key) and what to change, as one
/// line the daemon logs and `gbnotifyctl` prints, e.g.
/// `line 4: poll-interval: "5" is below the minimum of 10 seconds` or
/// `line 12: [rule bots] actor: "*[bot" is not a usable pattern: ...`.
public struct ConfigError: Error, Equatable, Sendable, CustomStringConvertible {
    /// 1-based; nil for a problem with the file as a whole.
    public let line: Int?
    /// The section the line is in, as its header reads (`rule bots`); nil for the global keys
    /// and the file as a whole.
    public let section: String?
    /// The key the problem is about; nil when the line has no usable key.
    public let key: String?
    /// What is wrong and what to do about it, without the location.
    public let reason: String

    public init(line: Int?, section: String? = nil, key: String?, reason: String) {
        self.line = line
        self.section = section.map { $0.displaySafe(truncatedTo: 80) }
        self.key = key
        self.reason = reason
    }

    public var description: String {
        var parts: [String] = []
        if let line { parts.append("line \(line)") }
        switch (section, key) {
        case (let section?, let key?): parts.append("[\(section)] \(key)")
        case (let section?, nil): parts.append("[\(section)]")
        case (nil, let key?): parts.append(key)
        case (nil, nil): break
        }
        parts.append(reason)
        return parts.joined(separator: ": ")
    }

    /// User text quoted for a message: one line, and short enough that a 4 KiB value cannot
    /// flood a log.
    static func quoted(_ text: some StringProtocol) -> String {
        "\"\(String(text).displaySafe(truncatedTo: 80))\""
    }
}
