import Curl
import Foundation
import Glibc
import TestSupport
import Testing

/// Every way a transfer fails is its own error, reached for real.
@Suite struct CurlFailureTests {
    @Test func aBodyOverTheLimitIsAnErrorNotACrash() async throws {
        let standin = try await Standin.start()
        let token = try await standin.addUserWithToken("cmc")
        try await standin.addFault(.init(.bodyBytes(2 << 20)))
        let request = HTTPRequest(
            mayUseProxy: false, url: "\(standin.url)/api/v1/read?argv=whoami", headers: ["Authorization": "Bearer \(token)"])

        await #expect(throws: CurlError.bodyTooLarge(limit: 1 << 20)) {
            try await HTTPSession.shared.perform(request, options: TransferOptions(acceptGzip: false))
        }
        // The same padding gzipped is small on the wire; the limit applies to what it inflates to.
        try await standin.addFault(.init(.bodyBytes(2 << 20)))
        await #expect(throws: CurlError.bodyTooLarge(limit: 1 << 20)) {
            try await HTTPSession.shared.perform(request)
        }
        // A body within a raised limit is whole.
        try await standin.addFault(.init(.bodyBytes(2 << 20)))
        let response = try await HTTPSession.shared.perform(request, options: TransferOptions(maxBodyBytes: 4 << 20))
        #expect(response.body.count == 2 << 20)
        await standin.stop()
    }

    /// libcurl's TLS library would open a FIFO given as the CA file and wait for a writer, on
    /// the loop, for ever: the transfer refuses it before libcurl sees it, and sends nothing.
    /// A regular file put back in its place is trusted again.
    @Test(.timeLimit(.minutes(1))) func aCAFileThatIsAFIFOFailsTheTransferWithoutWaiting() async throws {
        let standin = try await Standin.start(tls: .fixtures)
        let session = HTTPSession()
        let caFile = FileManager.default.temporaryDirectory.appending(path: "gbnotify-test-ca-\(UUID().uuidString).pem").path
        try #require(mkfifo(caFile, 0o600) == 0)
        defer { unlink(caFile) }
        let request = HTTPRequest(mayUseProxy: false, url: "\(standin.url)/")

        await #expect(throws: CurlError.unusableCAFile("\(caFile) is a FIFO, not a regular file")) {
            try await session.perform(request, options: TransferOptions(caFile: caFile))
        }
        #expect(try await standin.requests().isEmpty)

        unlink(caFile)
        try FileManager.default.copyItem(atPath: Standin.TLS.fixtures.caFile, toPath: caFile)
        #expect(try await session.perform(request, options: TransferOptions(caFile: caFile)).status == 200)
        await standin.stop()
    }

    @Test func aStalledServerHitsTheStallLimit() async throws {
        let standin = try await Standin.start()
        try await standin.addFault(.init(.stall))

        let error = await #expect(throws: CurlError.self) {
            try await HTTPSession.shared.perform(
                HTTPRequest(mayUseProxy: false, url: "\(standin.url)/"), options: TransferOptions(stallTimeout: .seconds(1)))
        }

        guard case .timedOut(let detail)? = error else { Issue.record("not a timeout: \(String(describing: error))"); return }
        // The stall limit ended it, not the overall timeout.
        #expect(detail.contains("too slow"))
        await standin.stop()
    }

    @Test func aDrippingServerHitsTheStallLimit() async throws {
        let standin = try await Standin.start()
        try await standin.addFault(.init(.drip(bytesPerSecond: 20)))

        let error = await #expect(throws: CurlError.self) {
            try await HTTPSession.shared.perform(
                HTTPRequest(mayUseProxy: false, url: "\(standin.url)/"),
                options: TransferOptions(stallTimeout: .seconds(1), stallBytesPerSecond: 1000))
        }

        // Bytes kept coming, only too few: the stall limit, not the overall timeout, ended it.
        guard case .timedOut(let detail)? = error else { Issue.record("not a timeout: \(String(describing: error))"); return }
        #expect(detail.contains("too slow"))
        await standin.stop()
    }

    @Test func theOverallTimeoutEndsASlowAnswer() async throws {
        let standin = try await Standin.start()
        try await standin.addFault(.init(.delay(seconds: 5)))

        let error = await #expect(throws: CurlError.self) {
            try await HTTPSession.shared.perform(
                HTTPRequest(mayUseProxy: false, url: "\(standin.url)/"), options: TransferOptions(overallTimeout: .milliseconds(500)))
        }

        // The overall timeout ended it (the stall limit would say "too slow"), not the answer.
        guard case .timedOut(let detail)? = error else { Issue.record("not a timeout: \(String(describing: error))"); return }
        #expect(detail.contains("timed out after"))
        await standin.stop()
    }

    @Test func aRefusedConnectionIsCouldNotConnect() async throws {
        let port = try BoundButNotListeningPort()

        let error = await #expect(throws: CurlError.self) {
            try await HTTPSession.shared.perform(HTTPRequest(mayUseProxy: false, url: "http://127.0.0.1:\(port.number)/"))
        }

        guard case .couldNotConnect(let detail)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(detail.contains("127.0.0.1"))
        #expect(error?.description.hasPrefix("could not connect to the server") == true)
    }

    @Test func anUnresolvableHostIsCouldNotResolve() async throws {
        let error = await #expect(throws: CurlError.self) {
            try await HTTPSession.shared.perform(HTTPRequest(mayUseProxy: false, url: "http://nonexistent.invalid/"))
        }

        guard case .couldNotResolveHost(let detail)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(detail.contains("nonexistent.invalid"))
    }

    @Test func aBodyLabelledGzipThatIsNotIsBadContentEncoding() async throws {
        let standin = try await Standin.start()
        let token = try await standin.addUserWithToken("cmc")
        try await standin.addFault(.init(.badGzip))

        let error = await #expect(throws: CurlError.self) {
            try await HTTPSession.shared.perform(HTTPRequest(
                mayUseProxy: false, url: "\(standin.url)/api/v1/read?argv=whoami", headers: ["Authorization": "Bearer \(token)"]))
        }

        guard case .badContentEncoding? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(error?.description.contains("gzip") == true)
        await standin.stop()
    }

    @Test func cancellingTheTaskAbortsTheTransfer() async throws {
        let standin = try await Standin.start()
        try await standin.addFault(.init(.stall))
        let transfer = Task {
            try await HTTPSession.shared.perform(HTTPRequest(mayUseProxy: false, url: "\(standin.url)/"))
        }
        _ = try await standin.waitForRequests(count: 1)
        let clock = ContinuousClock()
        let cancelled = clock.now

        transfer.cancel()

        await #expect(throws: CurlError.cancelled) { try await transfer.value }
        // Well inside the 30 s stall limit, so the transfer ended by cancellation, not by the
        // stall; a tighter bound would measure the machine's load rather than the code.
        #expect(clock.now - cancelled < .seconds(20))
        await standin.stop()
    }

    @Test(arguments: [
        ("http://user:secret@127.0.0.1:9/", "must not contain a user name or password"),
        ("http://user@127.0.0.1:9/", "must not contain a user name or password"),
        ("ftp://127.0.0.1:9/file", "only http and https"),
        ("not a url", "malformed"),
    ])
    func requestsThatMustNotBeSentAreRefused(url: String, reason: String) async throws {
        let error = await #expect(throws: CurlError.self) {
            try await HTTPSession.shared.perform(HTTPRequest(mayUseProxy: false, url: url))
        }

        guard case .invalidRequest(let text)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(text.contains(reason))
        #expect(!text.contains("secret"))
    }

    @Test func aHeaderValueCannotSmuggleInAnotherHeader() async throws {
        let error = await #expect(throws: CurlError.self) {
            try await HTTPSession.shared.perform(HTTPRequest(
                mayUseProxy: false, url: "http://127.0.0.1:9/", headers: ["Authorization": "Bearer gb_x\r\nX-Evil: 1"]))
        }

        #expect(error == .invalidRequest("the value of header Authorization contains a line break or NUL"))
        #expect(error?.description.contains("gb_x") == false)
    }
}
