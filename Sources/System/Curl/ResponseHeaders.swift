/// Collects response headers from libcurl's header callback, one complete line per call.
struct ResponseHeaders {
    /// More header bytes than this (all lines of all responses of one transfer) aborts it: a
    /// server cannot make the daemon buffer without bound.
    static let maximumBytes = 64 * 1024

    /// Names lowercased; the last value of a repeated header wins.
    private(set) var fields: [String: String] = [:]
    private var byteCount = 0

    /// Takes one raw header line; false when the total is over the limit.
    mutating func add(line: UnsafeRawBufferPointer) -> Bool {
        byteCount += line.count
        guard byteCount <= Self.maximumBytes else { return false }
        // A status line starts a new response: an interim 100 Continue or a proxy's CONNECT
        // answer comes before the real one, and their headers are not the response's.
        if line.starts(with: "HTTP/".utf8) {
            fields.removeAll()
            return true
        }
        // The blank line that ends a block, and obsolete folded continuations, carry no field.
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > 0,
              line.first != UInt8(ascii: " "), line.first != UInt8(ascii: "\t")
        else { return true }
        let name = Self.trimmed(line[..<colon]).lowercased()
        fields[name] = Self.trimmed(line[(colon + 1)...])
        return true
    }

    private static func trimmed(_ bytes: Slice<UnsafeRawBufferPointer>) -> String {
        let isBlank = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
        guard let first = bytes.firstIndex(where: { !isBlank($0) }),
              let last = bytes.lastIndex(where: { !isBlank($0) })
        else { return "" }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }
}
