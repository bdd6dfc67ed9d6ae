import Curl
import GitbayClient
import PushCore
import TestSupport
import Testing

/// Redirects, limits, stalls and TLS: where a token could leak or the daemon could hang.
@Suite struct GitbayClientSafetyTests {
    @Test func aRedirectToAnotherServerIsNotFollowed() async throws {
        let standin = try await Standin.start()
        let elsewhere = try await Standin.start()
        let token = try await standin.addUserWithToken("cmc")
        let target = "\(elsewhere.url)/api/v1/read?argv=whoami"
        try await standin.addFault(.init(.redirect(to: target)))

        let error = await #expect(throws: TransportError.self) {
            try await standin.client(token: token).send(.whoami)
        }

        #expect(error == .redirected(status: 302, location: target))
        #expect(error?.description.contains("does not follow redirects") == true)
        #expect(error?.description.contains(target) == true)
        #expect(error?.description.contains(token) == false)
        #expect(try await standin.requests().count == 1)
        #expect(try await elsewhere.requests().isEmpty)
        await standin.stop()
        await elsewhere.stop()
    }

    @Test func aRedirectTargetIsScrubbedForPrinting() async throws {
        let standin = try await Standin.start()
        let token = try await standin.addUserWithToken("cmc")
        try await standin.addFault(.init(.redirect(to: "https://evil.example/?t=\(token)&x=\u{1B}[31m")))

        let error = await #expect(throws: TransportError.self) {
            try await standin.client(token: token).send(.whoami)
        }

        #expect(error == .redirected(status: 302, location: "https://evil.example/?t=(redacted)&x= [31m"))
        await standin.stop()
    }

    @Test func anOversizedAnswerIsAnError() async throws {
        let standin = try await Standin.start()
        let token = try await standin.addUserWithToken("cmc")
        try await standin.addFault(.init(.bodyBytes(2 << 20)))

        await #expect(throws: TransportError.transfer(.bodyTooLarge(limit: 1 << 20))) {
            try await standin.client(token: token).send(.whoami)
        }
        await standin.stop()
    }

    @Test func aStalledServerHitsTheStallLimit() async throws {
        let standin = try await Standin.start()
        let token = try await standin.addUserWithToken("cmc")
        try await standin.addFault(.init(.stall))
        let client = try standin.client(token: token, options: .init(stallTimeout: .seconds(1)))

        let error = await #expect(throws: TransportError.self) { try await client.send(.whoami) }

        // The stall limit ended it, not the overall timeout.
        guard case .transfer(.timedOut(let detail))? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(detail.contains("too slow"))
        await standin.stop()
    }

    @Test func tlsVerifiesAgainstTheConfiguredCAOnly() async throws {
        let standin = try await Standin.start(tls: .fixtures)
        #expect(standin.url.hasPrefix("https://127.0.0.1:"))
        let token = try await standin.addUserWithToken("cmc")

        for caFile in [nil, Standin.TLS.unrelatedCAFile] {
            let error = await #expect(throws: TransportError.self) {
                try await standin.client(token: token, options: .init(caFile: caFile)).send(.whoami)
            }
            guard case .transfer(.tlsFailure(let detail))? = error else {
                Issue.record("\(String(describing: error))")
                continue
            }
            #expect(detail.contains("certificate"))
        }
        let trusted = try await standin.client(token: token, options: .init(caFile: Standin.TLS.fixtures.caFile)).send(.whoami)
        guard case .success = trusted else { Issue.record("\(trusted)"); return }
        #expect(try await standin.requests().count == 1)
        await standin.stop()
    }

    @Test func noErrorDescriptionContainsTheToken() async throws {
        let standin = try await Standin.start()
        let token = try await standin.addUserWithToken("cmc")
        let client = try standin.client(token: token, options: .init(stallTimeout: .seconds(1)))
        var descriptions: [String] = []
        for action: Standin.Fault.Action in [
            .redirect(to: "\(standin.url)/?token=\(token)"), .bodyBytes(2 << 20), .stall, .close,
            .truncate(bytes: 3), .badGzip,
        ] {
            // Until cleared: libcurl retries once on a fresh connection when a reused one closes
            // without an answer.
            try await standin.addFault(.init(action, times: 0))
            do {
                let result = try await client.send(.whoami)
                Issue.record("\(action) gave \(result)")
            } catch {
                descriptions.append(error.description)
            }
            try await standin.clearFaults()
        }
        let wrongToken = try standin.client(token: "gb_" + String(repeating: "f", count: 40))
        descriptions.append(try await wrongToken.send(.whoami).description)

        #expect(descriptions.count == 7)
        for description in descriptions {
            #expect(!description.contains(token))
            #expect(!description.contains("f" + String(repeating: "f", count: 39)))
        }
        await standin.stop()
    }
}
