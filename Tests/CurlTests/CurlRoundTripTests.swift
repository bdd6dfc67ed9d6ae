import Curl
import Foundation
import TestSupport
import Testing

/// Requests and responses as they travel, against a real stand-in.
@Suite struct CurlRoundTripTests {
    @Test func getReturnsStatusHeadersAndBody() async throws {
        let standin = try await Standin.start()
        let token = try await standin.addUserWithToken("cmc")

        let response = try await HTTPSession.shared.perform(HTTPRequest(
            mayUseProxy: false, url: "\(standin.url)/api/v1/read?argv=whoami",
            headers: ["Authorization": "Bearer \(token)", "X-Probe": "get"]))

        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.headers["cache-control"] == "private, no-cache")
        #expect(String(decoding: response.body, as: UTF8.self).contains(#""username":"cmc""#))
        let logged = try #require(try await standin.requests().first)
        #expect(logged.method == "GET")
        #expect(logged.target == "/api/v1/read?argv=whoami")
        #expect(logged.header("X-Probe") == "get")
        await standin.stop()
    }

    @Test func postSendsTheBodyAndHeaders() async throws {
        let standin = try await Standin.start()
        let token = try await standin.addUserWithToken("cmc")
        let body = Array(#"{"argv":["notifications","read","--all"]}"#.utf8)

        let response = try await HTTPSession.shared.perform(HTTPRequest(
            mayUseProxy: false, method: .post(body: body), url: "\(standin.url)/api/v1/cmd",
            headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json"]))

        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"protocol_version":1,"exit_code":0,"data":{"read":0}}"#)
        let logged = try #require(try await standin.requests().first)
        #expect(logged.method == "POST")
        #expect(logged.bodyText == String(decoding: body, as: UTF8.self))
        #expect(logged.header("Content-Type") == "application/json")
        #expect(logged.header("Expect") == nil)
        await standin.stop()
    }

    @Test func anEmptyPostBodyIsSentAsEmpty() async throws {
        let standin = try await Standin.start()

        let response = try await HTTPSession.shared.perform(HTTPRequest(
            mayUseProxy: false, method: .post(body: []), url: "\(standin.url)/api/v1/cmd"))

        #expect(response.status == 401)
        let logged = try #require(try await standin.requests().first)
        #expect(logged.header("Content-Length") == "0")
        #expect(logged.bodyText == nil)
        await standin.stop()
    }

    @Test func responseHeaderNamesAreLowercasedAndValuesTrimmed() async throws {
        let standin = try await Standin.start()
        try await standin.addFault(.init(.status(299, body: "ok", headers: [
            "X-Mixed-Case": "  padded value\t", "RETRY-AFTER": "7",
        ])))

        let response = try await HTTPSession.shared.perform(HTTPRequest(mayUseProxy: false, url: "\(standin.url)/"))

        #expect(response.status == 299)
        #expect(response.headers["x-mixed-case"] == "padded value")
        #expect(response.headers["retry-after"] == "7")
        #expect(response.headers["content-length"] == "2")
        #expect(response.headers.keys.allSatisfy { $0 == $0.lowercased() })
        #expect(response.body == Array("ok".utf8))
        await standin.stop()
    }

    @Test func gzipBodiesArriveInflated() async throws {
        let standin = try await Standin.start()
        let token = try await standin.addUserWithToken("cmc")
        try await standin.addNotifications(for: "cmc", count: 40)
        let request = HTTPRequest(
            mayUseProxy: false, url: "\(standin.url)/api/v1/read?argv=notifications&argv=list",
            headers: ["Authorization": "Bearer \(token)"])

        let inflated = try await HTTPSession.shared.perform(request)
        let plain = try await HTTPSession.shared.perform(request, options: TransferOptions(acceptGzip: false))

        #expect(inflated.status == 200)
        #expect(inflated.headers["content-encoding"] == "gzip")
        #expect(Int(try #require(inflated.headers["content-length"]))! < inflated.body.count)
        #expect(inflated.body == plain.body)
        #expect(plain.headers["content-encoding"] == nil)
        let logged = try await standin.requests()
        #expect(logged.map { $0.header("Accept-Encoding") } == ["gzip", nil])
        await standin.stop()
    }

    @Test func aRedirectIsReturnedNotFollowed() async throws {
        let standin = try await Standin.start()
        try await standin.addFault(.init(.redirect(to: "\(standin.url)/elsewhere")))

        let response = try await HTTPSession.shared.perform(HTTPRequest(mayUseProxy: false, url: "\(standin.url)/"))

        #expect(response.status == 302)
        #expect(response.headers["location"] == "\(standin.url)/elsewhere")
        #expect(try await standin.requests().map(\.path) == ["/"])
        await standin.stop()
    }
}
