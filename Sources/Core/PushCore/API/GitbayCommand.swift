/// The gitbay commands gbnotify runs over the API, and how each travels: read-only ones as
/// `GET /api/v1/read?argv=...`, the rest as `POST /api/v1/cmd` with a JSON body.
public enum GitbayCommand: Sendable, Equatable {
    case whoami
    /// `limit` is clamped to the server's 1...200; nil asks for the bare list of up to 50.
    /// `includingRead` adds the rows already read (`--all`).
    case notificationsList(limit: Int?, cursor: String?, includingRead: Bool = false)
    case notificationsRead(ids: [Int64])
    case notificationsReadAll
    case dashboard
    case settingsShow
    case settingsPush(Bool)
    /// Reads the install token from stdin.
    case deviceAdd(label: String)
    case deviceList
    case deviceRemove(id: Int64)
    /// `issue show OWNER/REPO N` (or `mr`, `build`): the item, every comment with it.
    case show(NotificationDestination)
    /// `repo mute|watch|unwatch OWNER/REPO`: the account's watch state of a repository.
    case repo(WatchChange, repository: String)
    /// `issue|mr comment OWNER/REPO N --file -`: the text travels as the request's stdin.
    case comment(NotificationDestination)
    /// `issue|mr react OWNER/REPO N REACTION [--remove]`.
    case react(NotificationDestination, reaction: String, remove: Bool)

    /// The three watch states a repository can be put in, one state per (account, repository).
    public enum WatchChange: String, Sendable, CaseIterable {
        /// No inbox rows (nor mail, nor push) for it any more, on every client of the account.
        case mute
        /// Every issue and merge request of it.
        case watch
        /// Back to the default, only work the account is part of; how a mute is undone.
        case unwatch

        /// The `state` the server answers with.
        public var resultingState: String {
            switch self {
            case .mute: "muted"
            case .watch: "watching"
            case .unwatch: "default"
            }
        }
    }

    public static let listLimitRange = 1...200

    /// Real argv: no shell and no quoting on the server side.
    public var argv: [String] {
        switch self {
        case .whoami:
            return ["whoami"]
        case .notificationsList(let limit, let cursor, let includingRead):
            var argv = ["notifications", "list"]
            if includingRead { argv.append("--all") }
            if let limit {
                let clamped = min(max(limit, Self.listLimitRange.lowerBound), Self.listLimitRange.upperBound)
                argv += ["--limit", String(clamped)]
            }
            if let cursor { argv += ["--cursor", cursor] }
            return argv
        case .notificationsRead(let ids):
            return ["notifications", "read"] + ids.map { String($0) }
        case .notificationsReadAll:
            return ["notifications", "read", "--all"]
        case .dashboard:
            return ["dashboard"]
        case .settingsShow:
            return ["notifications", "settings", "show"]
        case .settingsPush(let enabled):
            return ["notifications", "settings", "push", enabled ? "on" : "off"]
        case .deviceAdd(let label):
            return ["notifications", "device", "add", "--label", label]
        case .deviceList:
            return ["notifications", "device", "list"]
        case .deviceRemove(let id):
            return ["notifications", "device", "remove", String(id)]
        case .show(let destination):
            return [destination.kind.cliNoun, "show", destination.repository, String(destination.number)]
        case .repo(let change, let repository):
            return ["repo", change.rawValue, repository]
        case .comment(let destination):
            return [destination.kind.cliNoun, "comment", destination.repository, String(destination.number), "--file", "-"]
        case .react(let destination, let reaction, let remove):
            let argv = [destination.kind.cliNoun, "react", destination.repository, String(destination.number), reaction]
            return remove ? argv + ["--remove"] : argv
        }
    }

    /// Whether the command goes over GET, whose ETags make a repeated poll cheap. The server
    /// answers 400 when a state-changing command is sent there.
    public var isReadOnly: Bool {
        switch self {
        case .whoami, .notificationsList, .dashboard, .settingsShow, .deviceList, .show:
            true
        case .notificationsRead, .notificationsReadAll, .settingsPush, .deviceAdd, .deviceRemove, .repo, .comment, .react:
            false
        }
    }

    /// Whether sending the command twice does what sending it once does. Only a comment is not
    /// (gitbay-api.md: it has no request id, so a second request posts a second comment); every
    /// other write sets a state.
    public var isIdempotent: Bool {
        if case .comment = self { false } else { true }
    }

    /// The query of `GET /api/v1/read`: `argv=notifications&argv=list`, each value
    /// percent-encoded except RFC 3986's unreserved characters.
    public var readQuery: String {
        argv.map { "argv=" + Self.percentEncoded($0) }.joined(separator: "&")
    }

    /// The body of `POST /api/v1/cmd`: `{"argv": [...], "stdin": "..."}`, stdin omitted when nil.
    public func cmdBody(stdin: String?) -> [UInt8] {
        var body: [String: JSONValue] = ["argv": .array(argv.map(JSONValue.string))]
        if let stdin { body["stdin"] = .string(stdin) }
        return JSONValue.object(body).serialized
    }

    /// `gbnotifyd on HOSTNAME`, the label this install registers under. The hostname loses
    /// control characters and surrounding whitespace and is cut to 64 characters, since it ends
    /// up on the user's web settings page.
    public static func deviceLabel(hostname: String) -> String {
        var cleaned = String.UnicodeScalarView()
        cleaned.append(contentsOf: hostname.unicodeScalars.filter { $0.properties.generalCategory != .control })
        let name = String(String(cleaned).trimmingWhitespace).truncated(to: 64)
        return "gbnotifyd on \(name.isEmpty ? "unknown host" : name)"
    }

    private static func percentEncoded(_ value: String) -> String {
        var encoded = ""
        for byte in value.utf8 {
            if ASCII.isUnreserved(byte) {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                encoded += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return encoded
    }
}
