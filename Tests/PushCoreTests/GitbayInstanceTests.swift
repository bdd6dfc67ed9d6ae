import PushCore
import Testing

@Suite struct GitbayInstanceTests {
    struct Normalised: Sendable, CustomTestStringConvertible {
        let input: String
        let url: String
        let displayName: String
        let port: Int?
        let path: String
        let isLoopback: Bool
        var testDescription: String { input }
    }

    static let normalised: [Normalised] = [
        .init(input: "https://gitbay.org", url: "https://gitbay.org", displayName: "gitbay.org", port: nil, path: "", isLoopback: false),
        .init(input: "https://GitBay.ORG", url: "https://gitbay.org", displayName: "gitbay.org", port: nil, path: "", isLoopback: false),
        .init(input: "HTTPS://gitbay.org", url: "https://gitbay.org", displayName: "gitbay.org", port: nil, path: "", isLoopback: false),
        .init(input: "https://gitbay.org/", url: "https://gitbay.org", displayName: "gitbay.org", port: nil, path: "", isLoopback: false),
        .init(input: "https://gitbay.org:443", url: "https://gitbay.org", displayName: "gitbay.org", port: nil, path: "", isLoopback: false),
        .init(input: "https://GitBay.org:443/", url: "https://gitbay.org", displayName: "gitbay.org", port: nil, path: "", isLoopback: false),
        .init(input: "https://gitbay.org:00443", url: "https://gitbay.org", displayName: "gitbay.org", port: nil, path: "", isLoopback: false),
        .init(input: "https://gitbay.org:8443", url: "https://gitbay.org:8443", displayName: "gitbay.org:8443", port: 8443, path: "", isLoopback: false),
        .init(input: "https://gitbay.org:80/", url: "https://gitbay.org:80", displayName: "gitbay.org:80", port: 80, path: "", isLoopback: false),
        .init(input: "https://gitbay.org:65535", url: "https://gitbay.org:65535", displayName: "gitbay.org:65535", port: 65535, path: "", isLoopback: false),
        .init(input: "http://localhost:80", url: "http://localhost", displayName: "localhost", port: nil, path: "", isLoopback: true),
        .init(input: "http://LOCALHOST:443/", url: "http://localhost:443", displayName: "localhost:443", port: 443, path: "", isLoopback: true),
        .init(input: "http://gitbay.localhost:3000", url: "http://gitbay.localhost:3000", displayName: "gitbay.localhost:3000", port: 3000, path: "", isLoopback: true),
        .init(input: "http://127.0.0.1:8080", url: "http://127.0.0.1:8080", displayName: "127.0.0.1:8080", port: 8080, path: "", isLoopback: true),
        .init(input: "http://127.1.2.3", url: "http://127.1.2.3", displayName: "127.1.2.3", port: nil, path: "", isLoopback: true),
        .init(input: "http://[::1]:8080", url: "http://[::1]:8080", displayName: "[::1]:8080", port: 8080, path: "", isLoopback: true),
        .init(input: "http://[0:0:0:0:0:0:0:1]/", url: "http://[::1]", displayName: "[::1]", port: nil, path: "", isLoopback: true),
        .init(input: "https://[2001:DB8::0001]:443", url: "https://[2001:db8::1]", displayName: "[2001:db8::1]", port: nil, path: "", isLoopback: false),
        .init(input: "https://[2001:db8:0:0:1:0:0:1]", url: "https://[2001:db8::1:0:0:1]", displayName: "[2001:db8::1:0:0:1]", port: nil, path: "", isLoopback: false),
        .init(input: "https://[2001:db8:1:2:3:4:5:6]", url: "https://[2001:db8:1:2:3:4:5:6]", displayName: "[2001:db8:1:2:3:4:5:6]", port: nil, path: "", isLoopback: false),
        .init(input: "https://[::ffff:192.0.2.1]", url: "https://[::ffff:c000:201]", displayName: "[::ffff:c000:201]", port: nil, path: "", isLoopback: false),
        .init(input: "https://10.1.2.3:3000", url: "https://10.1.2.3:3000", displayName: "10.1.2.3:3000", port: 3000, path: "", isLoopback: false),
        .init(input: "https://example.com/git", url: "https://example.com/git", displayName: "example.com", port: nil, path: "/git", isLoopback: false),
        .init(input: "https://Example.com:443/git/", url: "https://example.com/git", displayName: "example.com", port: nil, path: "/git", isLoopback: false),
        .init(input: "https://example.com/Git/Bay", url: "https://example.com/Git/Bay", displayName: "example.com", port: nil, path: "/Git/Bay", isLoopback: false),
        .init(input: "https://example.com:8443/a.b_c~d-e/x", url: "https://example.com:8443/a.b_c~d-e/x", displayName: "example.com:8443", port: 8443, path: "/a.b_c~d-e/x", isLoopback: false),
        .init(input: "https://git_server.lan", url: "https://git_server.lan", displayName: "git_server.lan", port: nil, path: "", isLoopback: false),
        .init(input: "https://xn--bcher-kva.example", url: "https://xn--bcher-kva.example", displayName: "xn--bcher-kva.example", port: nil, path: "", isLoopback: false),
    ]

    @Test(arguments: normalised)
    func normalises(_ expected: Normalised) throws {
        let instance = try GitbayInstance(parsing: expected.input)
        #expect(instance.url == expected.url)
        #expect(instance.description == expected.url)
        #expect(instance.displayName == expected.displayName)
        #expect(instance.port == expected.port)
        #expect(instance.path == expected.path)
        #expect(instance.isLoopback == expected.isLoopback)
        #expect(instance.scheme == String(expected.url.prefix { $0 != ":" }))
        // The normalised form parses to itself.
        #expect(try GitbayInstance(parsing: instance.url) == instance)
    }

    static let rejected: [(String, InstanceError)] = [
        ("", .empty),
        (" https://gitbay.org", .whitespaceOrControl),
        ("https://gitbay.org ", .whitespaceOrControl),
        ("https://gitbay.org\n", .whitespaceOrControl),
        ("https://git bay.org", .whitespaceOrControl),
        ("https://gitbay.org\t/git", .whitespaceOrControl),
        ("https://gitbay.org\u{7}", .whitespaceOrControl),
        ("https://gitbay.org\u{0}", .whitespaceOrControl),
        ("https://gitbay.org\u{A0}", .whitespaceOrControl),
        ("https://gitbay.org\u{2028}", .whitespaceOrControl),
        ("https://gitbay.org\u{85}", .whitespaceOrControl),
        ("https://gitbäy.org", .nonASCII),
        ("https://gitbay.org/\u{2215}git", .nonASCII),
        ("https://gitbay.org\u{202E}", .nonASCII),
        ("gitbay.org", .missingScheme),
        ("gitbay.org:443", .missingScheme),
        ("//gitbay.org", .missingScheme),
        ("https:gitbay.org", .missingScheme),
        ("https:/gitbay.org", .missingScheme),
        ("javascript:alert(1)", .missingScheme),
        ("h-t-t-p://gitbay.org", .missingScheme),
        ("garbage", .missingScheme),
        ("://gitbay.org", .missingScheme),
        ("ftp://gitbay.org", .unsupportedScheme("ftp")),
        ("FILE:///etc/passwd", .unsupportedScheme("file")),
        ("ssh://git@gitbay.org", .unsupportedScheme("ssh")),
        ("httpss://gitbay.org", .unsupportedScheme("httpss")),
        ("https://user@gitbay.org", .userInfo),
        ("https://user:pw@gitbay.org", .userInfo),
        ("https://@gitbay.org", .userInfo),
        ("https://gitbay.org@evil.example", .userInfo),
        ("https://gitbay.org?x=1", .query),
        ("https://gitbay.org/?", .query),
        ("https://gitbay.org/git?next=/", .query),
        ("https://gitbay.org#top", .fragment),
        ("https://gitbay.org/git#x", .fragment),
        ("https://", .missingHost),
        ("https:///git", .missingHost),
        ("https://:443", .missingHost),
        ("https://git%62ay.org", .percentEncodedHost),
        ("https://[fe80::1%25eth0]", .percentEncodedHost),
        ("https://gitbay..org", .invalidHost),
        ("https://.gitbay.org", .invalidHost),
        ("https://gitbay.org.", .invalidHost),
        ("https://-gitbay.org", .invalidHost),
        ("https://gitbay-.org", .invalidHost),
        ("https://git!bay.org", .invalidHost),
        ("https://gitbay.org\\evil.example", .invalidHost),
        ("https://" + String(repeating: "a", count: 64) + ".org", .invalidHost),
        ("https://127.1", .invalidHost),
        ("https://2130706433", .invalidHost),
        ("https://0x7f.0.0.1", .invalidHost),
        ("https://127.000.0.1", .invalidHost),
        ("https://256.0.0.1", .invalidHost),
        ("https://1.2.3.4.5", .invalidHost),
        ("https://gitbay.1org", .invalidHost),
        ("https://[::1", .invalidIPv6),
        ("https://[]", .invalidIPv6),
        ("https://[1::2::3]", .invalidIPv6),
        ("https://[:::1]", .invalidIPv6),
        ("https://[12345::1]", .invalidIPv6),
        ("https://[::g]", .invalidIPv6),
        ("https://[1:2:3:4:5:6:7:8:9]", .invalidIPv6),
        ("https://[1:2:3:4:5:6:7]", .invalidIPv6),
        ("https://[1:2:3:4::5:6:7:8]", .invalidIPv6),
        ("https://[::1.2.3.4.5]", .invalidIPv6),
        ("https://[::1]x", .invalidIPv6),
        ("https://gitbay.org:", .invalidPort),
        ("https://gitbay.org:0", .invalidPort),
        ("https://gitbay.org:65536", .invalidPort),
        ("https://gitbay.org:99999999999999999999999", .invalidPort),
        ("https://gitbay.org:-1", .invalidPort),
        ("https://gitbay.org:+443", .invalidPort),
        ("https://gitbay.org:44a", .invalidPort),
        ("https://gitbay.org:443:443", .invalidPort),
        ("https://[::1]:", .invalidPort),
        ("https://gitbay.org//", .invalidPath),
        ("https://gitbay.org/a//b", .invalidPath),
        ("https://gitbay.org/./git", .invalidPath),
        ("https://gitbay.org/../git", .invalidPath),
        ("https://gitbay.org/git/..", .invalidPath),
        ("https://gitbay.org/g%69t", .invalidPath),
        ("https://gitbay.org/a;b", .invalidPath),
        ("https://gitbay.org/a:b", .invalidPath),
        ("http://gitbay.org", .insecureHTTP(url: "http://gitbay.org")),
        ("http://GitBay.org:80/", .insecureHTTP(url: "http://gitbay.org")),
        ("http://10.0.0.1:8080", .insecureHTTP(url: "http://10.0.0.1:8080")),
        ("http://[2001:db8::1]", .insecureHTTP(url: "http://[2001:db8::1]")),
        ("http://localhost.evil.example", .insecureHTTP(url: "http://localhost.evil.example")),
        ("http://127.0.0.1.nip.io", .insecureHTTP(url: "http://127.0.0.1.nip.io")),
        ("http://[::ffff:127.0.0.1]", .insecureHTTP(url: "http://[::ffff:7f00:1]")),
    ]

    @Test(arguments: rejected)
    func rejects(_ input: String, _ error: InstanceError) {
        #expect(throws: error) { try GitbayInstance(parsing: input) }
    }

    @Test func lengthLimitIsInclusive() throws {
        let prefix = "https://gitbay.org/"
        let atLimit = prefix + String(repeating: "a", count: GitbayInstance.maximumLength - prefix.utf8.count)
        #expect(try GitbayInstance(parsing: atLimit).url == atLimit)
        #expect(throws: InstanceError.tooLong) { try GitbayInstance(parsing: atLimit + "a") }
    }

    /// Found by Fuzz/Targets/instance.swift: this normalised to 2049 bytes, which did not parse
    /// again, so an account stored with it could never be read back.
    @Test func theLimitHoldsForTheNormalisedURL() throws {
        let prefix = "https://[1::2:3:4:5:6:7]/"
        let atLimit = prefix + String(repeating: "a", count: GitbayInstance.maximumLength - prefix.utf8.count)
        #expect(throws: InstanceError.tooLong) { try GitbayInstance(parsing: atLimit) }
        #expect(try GitbayInstance(parsing: String(atLimit.dropLast())).url.utf8.count == GitbayInstance.maximumLength)
    }

    @Test(arguments: [
        ("http://gitbay.org", "http://gitbay.org"),
        ("HTTP://Example.com:80/", "http://example.com"),
        ("http://10.0.0.1:8080/git/", "http://10.0.0.1:8080/git"),
        ("http://[2001:db8::1]", "http://[2001:db8::1]"),
    ])
    func plainHTTPWhenAllowed(_ input: String, _ url: String) throws {
        #expect(try GitbayInstance(parsing: input, allowInsecureHTTP: true).url == url)
    }

    @Test func allowingHTTPDoesNotLoosenAnythingElse() {
        #expect(throws: InstanceError.userInfo) {
            try GitbayInstance(parsing: "http://user@gitbay.org", allowInsecureHTTP: true)
        }
        #expect(throws: InstanceError.unsupportedScheme("ftp")) {
            try GitbayInstance(parsing: "ftp://gitbay.org", allowInsecureHTTP: true)
        }
    }

    /// Issue 14: a proxy from the environment (`http_proxy` and the rest) carried loopback
    /// plain-http requests, bearer token in the clear. Only https to another machine may take
    /// one: the proxy then tunnels TLS it cannot read.
    @Test(arguments: [
        ("https://gitbay.org", true),
        ("https://example.com:8443/git", true),
        ("https://127.0.0.1:8443", false),
        ("https://localhost", false),
        ("https://[::1]", false),
        ("http://127.0.0.1:8080", false),
        ("http://gitbay.example", false),
    ])
    func aProxyMayCarryOnlyHTTPSToAnotherMachine(_ input: String, _ mayUseProxy: Bool) throws {
        #expect(try GitbayInstance(parsing: input, allowInsecureHTTP: true).mayUseProxy == mayUseProxy)
    }

    @Test(arguments: [
        ["https://gitbay.org", "https://gitbay.org:443/", "HTTPS://GITBAY.ORG/", "https://GitBay.org:443"],
        ["http://[::1]:8080", "http://[0::1]:8080/", "http://[0:0:0:0:0:0:0:1]:8080"],
        ["https://example.com/git", "https://EXAMPLE.com:443/git/"],
    ])
    func spellingsOfOneServerAreEqual(_ spellings: [String]) throws {
        let instances = try spellings.map { try GitbayInstance(parsing: $0) }
        #expect(Set(instances).count == 1)
        #expect(instances.allSatisfy { $0 == instances[0] })
    }

    @Test(arguments: [
        ("https://gitbay.org", "https://gitbay.org:8443"),
        ("https://gitbay.org", "https://gitbay.org/git"),
        ("https://example.com/git", "https://example.com/Git"),
        ("https://localhost", "http://localhost"),
        ("http://localhost:443", "https://localhost"),
        ("https://gitbay.org", "https://www.gitbay.org"),
    ])
    func differentServersDiffer(_ left: String, _ right: String) throws {
        #expect(try GitbayInstance(parsing: left) != GitbayInstance(parsing: right))
    }

    @Test func insecureHTTPErrorTellsTheWayOut() {
        let message = InstanceError.insecureHTTP(url: "http://example.com").description
        #expect(message == "plain http is only allowed for loopback hosts; pass --allow-http to allow http://example.com")
    }

    @Test(arguments: rejected.map(\.1))
    func everyErrorIsASentence(_ error: InstanceError) {
        #expect(error.description.hasPrefix("the ") || error.description.hasPrefix("'") || error.description.hasPrefix("plain"))
        #expect(error.description.count > 20)
    }
}
