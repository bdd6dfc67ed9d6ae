import Curl
import TestSupport
import Testing

/// `HTTPSession.stream`: the head first, then the body as it arrives, against the relay
/// stand-in, which keeps its streams open for as long as the client reads.
@Suite struct CurlStreamTests {
    /// Reads whole lines from `iterator` until `count` have come.
    static func lines(_ count: Int, from iterator: inout HTTPStream.Iterator) async throws -> [String] {
        var lines: [String] = []
        var pending: [UInt8] = []
        while lines.count < count {
            guard let chunk = try await iterator.next() else { break }
            pending += chunk
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                lines.append(String(decoding: pending[..<newline], as: UTF8.self))
                pending.removeSubrange(...newline)
            }
        }
        return lines
    }

    @Test func theHeadComesFirstThenChunksAsTheyArePublished() async throws {
        let relay = try await RelayStandin.start()
        let stream = try await HTTPSession.shared.stream(HTTPRequest(mayUseProxy: false, url: "\(relay.url)/topic1/json"))
        #expect(stream.status == 200)
        #expect(stream.headers["content-type"] == "application/x-ndjson; charset=utf-8")

        var iterator = stream.makeAsyncIterator()
        #expect(try await Self.lines(1, from: &iterator).first?.contains(#""event":"open""#) == true)
        // Published after the stream opened: only a live stream can carry it.
        let published = try await relay.publish("hello", to: "topic1")
        let line = try await Self.lines(1, from: &iterator)
        #expect(line.first?.contains(#""id":"\#(published.id)""#) == true)
        #expect(line.first?.contains(#""message":"hello""#) == true)
        await relay.stop()
    }

    @Test func anErrorStatusStillGivesItsHeadAndBody() async throws {
        let relay = try await RelayStandin.start()
        try await relay.requireToken("tk_secret")
        let refused = try await HTTPSession.shared.stream(HTTPRequest(mayUseProxy: false, url: "\(relay.url)/topic2/json"))
        #expect(refused.status == 401)
        var body: [UInt8] = []
        for try await chunk in refused { body += chunk }
        #expect(String(decoding: body, as: UTF8.self).contains("unauthorized"))

        let accepted = try await HTTPSession.shared.stream(
            HTTPRequest(mayUseProxy: false, url: "\(relay.url)/topic2/json", headers: ["Authorization": "Bearer tk_secret"]))
        #expect(accepted.status == 200)
        await relay.stop()
    }

    @Test func cancellingTheReaderClosesTheConnection() async throws {
        let relay = try await RelayStandin.start()
        let url = relay.url
        let reader = Task {
            let stream = try await HTTPSession.shared.stream(HTTPRequest(mayUseProxy: false, url: "\(url)/topic3/json"))
            for try await _ in stream {}
        }
        try await relay.waitForOpenStreams(1)
        reader.cancel()
        await #expect(throws: CurlError.cancelled) { try await reader.value }
        try await relay.waitForOpenStreams(0)
        await relay.stop()
    }

    @Test func droppingTheStreamClosesTheConnection() async throws {
        let relay = try await RelayStandin.start()
        do {
            let stream = try await HTTPSession.shared.stream(HTTPRequest(mayUseProxy: false, url: "\(relay.url)/topic4/json"))
            for try await _ in stream { break }
        }
        try await relay.waitForOpenStreams(0)
        await relay.stop()
    }

    @Test func aSlowReaderGetsEveryByteThroughASmallBuffer() async throws {
        let relay = try await RelayStandin.start()
        // A 1 KiB buffer against 1 MiB sent at once: the transfer pauses and resumes many times.
        let stream = try await HTTPSession.shared.stream(
            HTTPRequest(mayUseProxy: false, url: "\(relay.url)/topic5/json"), options: StreamOptions(bufferLimit: 1024))
        var iterator = stream.makeAsyncIterator()
        _ = try await Self.lines(1, from: &iterator)
        try await relay.sendRaw("start:", pad: 1 << 20, to: "topic5")
        try await relay.sendRaw(":end\n", to: "topic5")
        let line = try await Self.lines(1, from: &iterator)
        #expect(line.first?.utf8.count == 6 + (1 << 20) + 4)
        #expect(line.first?.hasPrefix("start:xxx") == true)
        #expect(line.first?.hasSuffix("xxx:end") == true)
        await relay.stop()
    }

    @Test func aConnectionCutMidLineIsAnError() async throws {
        let relay = try await RelayStandin.start()
        try await relay.disconnect(topic: "topic6", afterMessages: 1)
        let stream = try await HTTPSession.shared.stream(HTTPRequest(mayUseProxy: false, url: "\(relay.url)/topic6/json"))
        try await relay.publish("one", to: "topic6")
        try await relay.publish("two", to: "topic6")
        var received: [UInt8] = []
        await #expect(throws: CurlError.self) {
            for try await chunk in stream { received += chunk }
        }
        // The open event and message one whole, then half a line.
        #expect(received.filter { $0 == UInt8(ascii: "\n") }.count == 2)
        await relay.stop()
    }

    @Test func tlsIsVerifiedWithTheConfiguredCA() async throws {
        let relay = try await RelayStandin.start(tls: .fixtures)
        let request = HTTPRequest(mayUseProxy: false, url: "\(relay.url)/topic7/json")
        let trusted = try await HTTPSession.shared.stream(request, options: StreamOptions(caFile: Standin.TLS.fixtures.caFile))
        #expect(trusted.status == 200)

        let error = await #expect(throws: CurlError.self) {
            try await HTTPSession.shared.stream(request, options: StreamOptions(caFile: Standin.TLS.unrelatedCAFile))
        }
        guard case .tlsFailure? = error else { Issue.record("not a TLS failure: \(String(describing: error))"); return }
        await relay.stop()
    }

    @Test func onlyGETCanBeStreamed() async {
        await #expect(throws: CurlError.invalidRequest("only GET requests can be streamed")) {
            try await HTTPSession.shared.stream(HTTPRequest(mayUseProxy: false, method: .post(body: []), url: "http://127.0.0.1:1/"))
        }
    }

    @Test func aRefusedConnectionFailsTheStreamCall() async {
        let error = await #expect(throws: CurlError.self) {
            try await HTTPSession.shared.stream(HTTPRequest(mayUseProxy: false, url: "http://127.0.0.1:1/t/json"))
        }
        guard case .couldNotConnect? = error else { Issue.record("not a refused connect: \(String(describing: error))"); return }
    }
}
