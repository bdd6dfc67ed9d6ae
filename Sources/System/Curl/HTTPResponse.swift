/// A complete HTTP response. Any status is a response, redirects included: nothing is followed.
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    /// Header names lowercased; when a header repeats, the last value wins.
    public var headers: [String: String]
    /// The body, already inflated when it came gzip-encoded.
    public var body: [UInt8]
    /// Whether the transfer ran on a connection kept from an earlier one.
    public var reusedConnection: Bool

    public init(status: Int, headers: [String: String], body: [UInt8], reusedConnection: Bool) {
        self.status = status
        self.headers = headers
        self.body = body
        self.reusedConnection = reusedConnection
    }
}
