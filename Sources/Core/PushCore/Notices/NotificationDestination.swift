/// What a notice opens: an issue, a merge request or a build, parsed from a web path of exactly
/// `OWNER/REPO/(issues|mrs|builds)/N`.
///
/// Anything else (a repository root, a wiki page, `merge_requests`, a leading slash, `..`,
/// percent-encoding, whitespace, a non-ASCII lookalike) is not a destination, so a notice can
/// never make the desktop open an arbitrary URL.
public struct NotificationDestination: Hashable, Sendable {
    public let owner: String
    public let repo: String
    public let kind: ItemKind
    /// Positive.
    public let number: Int64

    /// Owner and repository names: 1...100 of `[A-Za-z0-9._-]`.
    public static let maximumNameLength = 100

    public init?(path: String) {
        let segments = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard segments.count == 4,
              Self.isName(segments[0]), Self.isName(segments[1]),
              let kind = ItemKind(pathSegment: Substring(segments[2])),
              segments[3].first != UInt8(ascii: "0"),
              let number = ASCII.decimalValue(segments[3])
        else { return nil }
        owner = String(Substring(segments[0]))
        repo = String(Substring(segments[1]))
        self.kind = kind
        self.number = number
    }

    /// "OWNER/REPO".
    public var repository: String { "\(owner)/\(repo)" }

    /// `OWNER/REPO` when `text` is one, as in a path, else nil: what `repo mute` may be sent.
    public static func repository(parsing text: String) -> String? {
        let segments = text.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard segments.count == 2, isName(segments[0]), isName(segments[1]) else { return nil }
        return text
    }

    /// How a person names the item: `krz/gitbay#12`, a merge request `krz/gitbay!31`.
    public var shortName: String { "\(repository)\(kind == .mr ? "!" : "#")\(number)" }

    /// The path rebuilt from the parsed parts: `OWNER/REPO/issues/N`.
    public var path: String { "\(owner)/\(repo)/\(kind.pathSegment)/\(number)" }

    /// A name neither hidden (".") nor option-like ("-"): `OWNER/REPO` becomes an argument of
    /// the gitbay CLI when a notice opens in a terminal, and "-x/y" must not read as an option.
    private static func isName(_ bytes: Substring.UTF8View) -> Bool {
        guard let first = bytes.first, bytes.count <= maximumNameLength,
              first != UInt8(ascii: "."), first != UInt8(ascii: "-")
        else { return false }
        return bytes.allSatisfy(ASCII.isNameCharacter)
    }
}

/// The kinds of inbox item gitbay has, by their raw name in inbox rows (`"issue"`, `"mr"`,
/// `"build"`).
public enum ItemKind: String, Sendable, Codable, CaseIterable {
    case issue
    case mr
    case build

    /// The web path segment: "issues", "mrs", "builds".
    public var pathSegment: String {
        switch self {
        case .issue: "issues"
        case .mr: "mrs"
        case .build: "builds"
        }
    }

    /// The gitbay CLI noun: `gitbay issue|mr|build show ...`.
    public var cliNoun: String { rawValue }

    /// The freedesktop notification category hint.
    public var category: String { "x-gitbay.\(rawValue)" }

    init?(pathSegment: Substring) {
        guard let kind = Self.allCases.first(where: { $0.pathSegment == pathSegment }) else { return nil }
        self = kind
    }
}
