/// A gitbay server, known by its normalised base URL.
///
/// The URL is parsed by hand rather than with `URL`, which accepts far more than a bearer token
/// should ever be sent to (user info, odd hosts, numeric host forms, encodings). What is accepted:
///
///     http[s]://HOST[:PORT][/PREFIX]
///
/// HOST is a DNS name, a dotted-quad IPv4 address or a bracketed IPv6 address; PREFIX is plain
/// path segments (gitbay behind a reverse proxy on a sub-path). Normalising lowercases the scheme
/// and host, drops the scheme's own default port and a trailing slash, and writes IPv6 the
/// RFC 5952 way (all hex, embedded IPv4 included), so two spellings of one server compare equal.
public struct GitbayInstance: Hashable, Sendable, CustomStringConvertible {
    /// "https" or "http".
    public let scheme: String
    /// The host as written in a URL: lowercase, IPv6 in brackets (`[::1]`).
    public let host: String
    /// The port, or nil when it is the scheme's default.
    public let port: Int?
    /// The path prefix: "" or segments with a leading slash, such as "/git".
    public let path: String
    /// Whether the host is this machine: `localhost`, `*.localhost`, 127.0.0.0/8 or `[::1]`.
    public let isLoopback: Bool

    /// Longer than this is not a server address but a mistake (or an attack).
    public static let maximumLength = 2048

    public init(parsing text: String, allowInsecureHTTP: Bool = false) throws(InstanceError) {
        guard !text.isEmpty else { throw .empty }
        guard text.utf8.count <= Self.maximumLength else { throw .tooLong }
        for scalar in text.unicodeScalars {
            if scalar.properties.isWhitespace || scalar.properties.generalCategory == .control {
                throw .whitespaceOrControl
            }
            if !scalar.isASCII { throw .nonASCII }
        }
        let bytes = Array(text.utf8)

        // Scheme: letters up to "://".
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0,
              bytes[..<colon].allSatisfy(ASCII.isLetter),
              bytes[colon...].starts(with: "://".utf8)
        else { throw .missingScheme }
        let scheme = ASCII.lowercased(bytes[..<colon])
        guard scheme == "https" || scheme == "http" else {
            throw .unsupportedScheme(String(scheme.prefix(32)))
        }

        // Authority: up to the first "/", "?" or "#".
        let authorityStart = colon + 3
        let authorityEnd = bytes[authorityStart...].firstIndex {
            $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#")
        } ?? bytes.endIndex
        let authority = bytes[authorityStart..<authorityEnd]
        guard !authority.contains(UInt8(ascii: "@")) else { throw .userInfo }

        let rest = bytes[authorityEnd...]
        for byte in rest {
            if byte == UInt8(ascii: "?") { throw .query }
            if byte == UInt8(ascii: "#") { throw .fragment }
        }

        let (host, isLoopback, portText) = try Self.parseHostAndPort(authority)
        var port: Int?
        if let portText {
            guard let value = ASCII.decimalValue(portText, limit: 65535), value > 0 else {
                throw .invalidPort
            }
            let defaultPort = scheme == "https" ? 443 : 80
            port = Int(value) == defaultPort ? nil : Int(value)
        }

        self.scheme = scheme
        self.host = host
        self.port = port
        self.path = try Self.parsePathPrefix(rest)
        self.isLoopback = isLoopback
        // Normalising can lengthen an address by a byte ("1::2:3:4:5:6:7" is written
        // "1:0:2:3:4:5:6:7"), and a stored URL must parse again when it is read back.
        guard url.utf8.count <= Self.maximumLength else { throw .tooLong }

        if scheme == "http" && !isLoopback && !allowInsecureHTTP {
            throw .insecureHTTP(url: url)
        }
    }

    /// The normalised base URL without a trailing slash, e.g. `https://gitbay.org`,
    /// `http://127.0.0.1:8080` or `https://example.com/git`.
    public var url: String { "\(scheme)://\(displayName)\(path)" }

    /// Whether a proxy from the environment may carry requests here: only over https (a proxy
    /// then tunnels TLS it cannot read) and never to this machine, where a proxy has no business.
    public var mayUseProxy: Bool { scheme == "https" && !isLoopback }

    /// Host plus a non-default port, e.g. `gitbay.org` or `127.0.0.1:8080`.
    public var displayName: String {
        guard let port else { return host }
        return "\(host):\(port)"
    }

    public var description: String { url }

    // MARK: - Host

    private static func parseHostAndPort(
        _ authority: ArraySlice<UInt8>
    ) throws(InstanceError) -> (host: String, isLoopback: Bool, portText: ArraySlice<UInt8>?) {
        guard !authority.isEmpty else { throw .missingHost }
        guard !authority.contains(UInt8(ascii: "%")) else { throw .percentEncodedHost }

        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")),
                  let groups = IPv6.parse(authority[(authority.startIndex + 1)..<close])
            else { throw .invalidIPv6 }
            let afterClose = authority[(close + 1)...]
            let portText: ArraySlice<UInt8>?
            if afterClose.isEmpty {
                portText = nil
            } else if afterClose.first == UInt8(ascii: ":") {
                portText = afterClose.dropFirst()
            } else {
                throw .invalidIPv6
            }
            return ("[\(IPv6.format(groups))]", groups == IPv6.loopback, portText)
        }

        let colon = authority.firstIndex(of: UInt8(ascii: ":"))
        let hostBytes = authority[..<(colon ?? authority.endIndex)]
        let portText = colon.map { authority[($0 + 1)...] }
        guard !hostBytes.isEmpty else { throw .missingHost }
        let host = ASCII.lowercased(hostBytes)
        let labels = host.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)

        // As in browsers, a host whose last label starts with a digit is an IPv4 address, and
        // only the plain dotted-quad form is accepted (no "127.1", "0x7f.1" or "2130706433").
        if let last = labels.last, let first = last.first, ASCII.isDigit(first) {
            guard let octets = IPv4.parse(labels) else { throw .invalidHost }
            return (host, octets[0] == 127, portText)
        }
        guard host.utf8.count <= 253, labels.allSatisfy(isHostLabel) else { throw .invalidHost }
        return (host, host == "localhost" || host.hasSuffix(".localhost"), portText)
    }

    /// A DNS label: 1...63 of letters, digits, "-" and "_" (seen on internal networks), not
    /// starting or ending with "-".
    private static func isHostLabel(_ label: Substring.UTF8View.SubSequence) -> Bool {
        guard (1...63).contains(label.count),
              label.first != UInt8(ascii: "-"), label.last != UInt8(ascii: "-")
        else { return false }
        return label.allSatisfy {
            ASCII.isLetter($0) || ASCII.isDigit($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
        }
    }

    // MARK: - Path

    /// "" or "/seg/seg", from what follows the authority (already free of "?" and "#").
    private static func parsePathPrefix(_ rest: ArraySlice<UInt8>) throws(InstanceError) -> String {
        var rest = rest
        if rest.last == UInt8(ascii: "/") { rest.removeLast() }
        guard !rest.isEmpty else { return "" }
        let segments = rest.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        for segment in segments {
            guard !segment.isEmpty, segment.allSatisfy(ASCII.isUnreserved),
                  !segment.elementsEqual(".".utf8), !segment.elementsEqual("..".utf8)
            else { throw .invalidPath }
        }
        return String(decoding: rest, as: UTF8.self)
    }
}

/// Why a string is not a usable gitbay instance URL, in words for the user.
public enum InstanceError: Error, Equatable, CustomStringConvertible {
    case empty
    case tooLong
    case whitespaceOrControl
    case nonASCII
    case missingScheme
    case unsupportedScheme(String)
    case userInfo
    case query
    case fragment
    case missingHost
    case percentEncodedHost
    case invalidHost
    case invalidIPv6
    case invalidPort
    case invalidPath
    case insecureHTTP(url: String)

    public var description: String {
        switch self {
        case .empty:
            "the instance URL is empty"
        case .tooLong:
            "the instance URL is longer than \(GitbayInstance.maximumLength) bytes"
        case .whitespaceOrControl:
            "the instance URL contains whitespace or a control character"
        case .nonASCII:
            "the instance URL contains a non-ASCII character; write an international host name in its xn-- form"
        case .missingScheme:
            "the instance URL must start with https:// (or http:// for a loopback host)"
        case .unsupportedScheme(let scheme):
            "'\(scheme)://' is not supported; the instance URL must start with https:// (or http:// for a loopback host)"
        case .userInfo:
            "the instance URL must not contain a user name or password (user@host); the account comes from the token"
        case .query:
            "the instance URL must not contain a query (?...)"
        case .fragment:
            "the instance URL must not contain a fragment (#...)"
        case .missingHost:
            "the instance URL has no host"
        case .percentEncodedHost:
            "the host of the instance URL must not be percent-encoded"
        case .invalidHost:
            "the host of the instance URL is not a valid host name or dotted-quad IPv4 address"
        case .invalidIPv6:
            "the instance URL has a malformed bracketed IPv6 address (write it like http://[::1]:8080)"
        case .invalidPort:
            "the port of the instance URL must be a number from 1 to 65535"
        case .invalidPath:
            "the path of the instance URL may only be a prefix of plain segments (letters, digits, '.', '_', '~', '-'), with no empty, '.' or '..' segment"
        case .insecureHTTP(let url):
            "plain http is only allowed for loopback hosts; pass --allow-http to allow \(url)"
        }
    }
}

/// Strict dotted-quad IPv4: four decimal parts, 0...255, no leading zeros (which some parsers
/// read as octal).
private enum IPv4 {
    static func parse(_ parts: [Substring.UTF8View.SubSequence]) -> [UInt8]? {
        guard parts.count == 4 else { return nil }
        var octets: [UInt8] = []
        for part in parts {
            guard (1...3).contains(part.count), part.count == 1 || part.first != UInt8(ascii: "0"),
                  let value = ASCII.decimalValue(part, limit: 255)
            else { return nil }
            octets.append(UInt8(value))
        }
        return octets
    }
}

/// IPv6 text forms (RFC 4291 section 2.2) to eight groups, and back in RFC 5952's canonical form
/// (except that an embedded IPv4 address is written as two hex groups).
private enum IPv6 {
    static let loopback: [UInt16] = [0, 0, 0, 0, 0, 0, 0, 1]

    static func parse(_ text: ArraySlice<UInt8>) -> [UInt16]? {
        let string = String(decoding: text, as: UTF8.self)
        let halves = string.split(separator: "::", omittingEmptySubsequences: false)
        guard halves.count <= 2 else { return nil }
        let isLastHalf = { (index: Int) in index == halves.count - 1 }
        guard var head = groups(halves[0], mayEndInIPv4: isLastHalf(0)) else { return nil }
        if halves.count == 1 {
            return head.count == 8 ? head : nil
        }
        guard let tail = groups(halves[1], mayEndInIPv4: true), head.count + tail.count <= 7 else {
            return nil
        }
        head += Array(repeating: 0, count: 8 - head.count - tail.count)
        return head + tail
    }

    /// The groups of one side of "::" ("" is none); the last may be a dotted quad worth two.
    private static func groups(_ text: Substring, mayEndInIPv4: Bool) -> [UInt16]? {
        guard !text.isEmpty else { return [] }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        var result: [UInt16] = []
        for (index, part) in parts.enumerated() {
            if mayEndInIPv4 && index == parts.count - 1 && part.contains(".") {
                let dotted = part.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
                guard let octets = IPv4.parse(dotted) else { return nil }
                result.append(UInt16(octets[0]) << 8 | UInt16(octets[1]))
                result.append(UInt16(octets[2]) << 8 | UInt16(octets[3]))
            } else {
                guard (1...4).contains(part.utf8.count), part.utf8.allSatisfy(ASCII.isHexDigit),
                      let value = UInt16(part, radix: 16)
                else { return nil }
                result.append(value)
            }
        }
        return result
    }

    /// Lowercase hex without leading zeros; the longest run of two or more zero groups (the
    /// first, on a tie) becomes "::".
    static func format(_ groups: [UInt16]) -> String {
        var bestStart = -1, bestLength = 1
        var index = 0
        while index < groups.count {
            guard groups[index] == 0 else { index += 1; continue }
            var end = index
            while end < groups.count && groups[end] == 0 { end += 1 }
            if end - index > bestLength { (bestStart, bestLength) = (index, end - index) }
            index = end
        }
        let hex = groups.map { String($0, radix: 16) }
        guard bestStart >= 0 else { return hex.joined(separator: ":") }
        let head = hex[..<bestStart].joined(separator: ":")
        let tail = hex[(bestStart + bestLength)...].joined(separator: ":")
        return head + "::" + tail
    }
}
