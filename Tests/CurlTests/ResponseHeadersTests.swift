@testable import Curl
import Testing

/// The header-callback parser, line by line as libcurl hands them over.
@Suite struct ResponseHeadersTests {
    private func collect(_ lines: [String]) -> (fields: [String: String], accepted: Bool) {
        var headers = ResponseHeaders()
        var accepted = true
        for line in lines {
            accepted = Array(line.utf8).withUnsafeBytes { headers.add(line: $0) } && accepted
        }
        return (headers.fields, accepted)
    }

    @Test func namesAreLowercasedValuesTrimmedAndTheLastValueWins() {
        let (fields, accepted) = collect([
            "HTTP/1.1 200 OK\r\n", "Content-Type:  application/json \r\n", "ETag: \"a\"\r\n",
            "etag: \"b\"\r\n", "X-Empty:\r\n", "\r\n",
        ])
        #expect(accepted)
        #expect(fields == ["content-type": "application/json", "etag": "\"b\"", "x-empty": ""])
    }

    @Test func aNewStatusLineStartsOver() {
        let (fields, _) = collect([
            "HTTP/1.1 100 Continue\r\n", "X-Interim: 1\r\n", "\r\n",
            "HTTP/1.1 200 OK\r\n", "X-Final: 2\r\n", "\r\n",
        ])
        #expect(fields == ["x-final": "2"])
    }

    @Test func linesWithoutAFieldAreSkipped() {
        let (fields, _) = collect(["HTTP/1.1 200 OK\r\n", "garbage\r\n", ": no name\r\n", " folded: x\r\n", "A: b\r\n"])
        #expect(fields == ["a": "b"])
    }

    @Test func moreThanTheLimitIsRefused() {
        let line = "X-Big: " + String(repeating: "x", count: 1000) + "\r\n"
        let (_, accepted) = collect(Array(repeating: line, count: ResponseHeaders.maximumBytes / line.utf8.count + 1))
        #expect(!accepted)
    }
}
