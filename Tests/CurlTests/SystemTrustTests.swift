@testable import Curl
import Foundation
import TestSupport
import Testing

/// Without a CA file the system's CAs come from OpenSSL's hashed directory, read a CA at a time
/// as handshakes need one, rather than parsed whole from libcurl's bundle (`SystemTrust`).
@Suite struct SystemTrustTests {
    /// A directory of `certificates`, hashed by `openssl rehash` as update-ca-certificates does.
    static func hashedDirectory(_ certificates: [String]) async throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appending(path: "gbnotify-trust-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (index, certificate) in certificates.enumerated() {
            try FileManager.default.copyItem(atPath: certificate, toPath: directory.appending(path: "ca-\(index).pem").path)
        }
        let rehash = try await Program.run(["openssl", "rehash", directory.path], environment: ProcessInfo.processInfo.environment)
        try #require(rehash.status == 0, "\(rehash.stderr)")
        return directory
    }

    @Test func aServerIsVerifiedAgainstTheHashedDirectoryAndOnlyAgainstIt() async throws {
        let standin = try await Standin.start(tls: .fixtures)
        let trusting = try await Self.hashedDirectory([Standin.TLS.fixtures.caFile])
        // Another CA only: the system's first, as Debian ships it.
        let other = try #require(try FileManager.default.contentsOfDirectory(atPath: "/usr/share/ca-certificates/mozilla").sorted().first)
        let notTrusting = try await Self.hashedDirectory(["/usr/share/ca-certificates/mozilla/\(other)"])
        defer {
            try? FileManager.default.removeItem(at: trusting)
            try? FileManager.default.removeItem(at: notTrusting)
        }
        #expect(SystemTrust.directory(environment: trusting.path) == trusting.path)

        let request = HTTPRequest(mayUseProxy: false, url: "\(standin.url)/")
        let verified = try await HTTPSession().perform(request, options: TransferOptions(caDirectory: trusting.path))
        #expect(verified.status == 200)
        await #expect(throws: CurlError.self) {
            try await HTTPSession().perform(request, options: TransferOptions(caDirectory: notTrusting.path))
        }
        // A CA file, when given, is what is trusted, not the directory beside it.
        let fromFile = TransferOptions(caFile: Standin.TLS.fixtures.caFile, caDirectory: notTrusting.path)
        #expect(try await HTTPSession().perform(request, options: fromFile).status == 200)
        await standin.stop()
    }

    @Test func aDirectoryWithoutHashLinksLeavesLibcurlsBundle() throws {
        let plain = FileManager.default.temporaryDirectory.appending(path: "gbnotify-plain-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: plain, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: plain) }
        try FileManager.default.copyItem(atPath: Standin.TLS.fixtures.caFile, toPath: plain.appending(path: "ca.pem").path)
        #expect(SystemTrust.directory(environment: plain.path) == nil)
        #expect(SystemTrust.directory(environment: "relative/certs") == SystemTrust.directory(environment: nil))
        #expect(SystemTrust.isHashName("5ad8a5d6.0"))
        #expect(SystemTrust.isHashName("5AD8A5D6.12"))
        #expect(!SystemTrust.isHashName("ca.pem"))
        #expect(!SystemTrust.isHashName("5ad8a5d6.pem"))
        #expect(!SystemTrust.isHashName("5ad8a5d.0"))
    }
}
