import PushCore
import Testing

@Suite struct LinksTests {
    @Test(arguments: [
        ("https://gitbay.org", "krz/gitbay/issues/12", "https://gitbay.org/krz/gitbay/issues/12"),
        ("https://GitBay.org:443/", "krz/gitbay/mrs/3", "https://gitbay.org/krz/gitbay/mrs/3"),
        ("https://example.com/git/", "o/r/builds/9", "https://example.com/git/o/r/builds/9"),
        ("http://127.0.0.1:8080", "o/r/issues/1", "http://127.0.0.1:8080/o/r/issues/1"),
        ("http://[::1]:3000", "o/r/mrs/2", "http://[::1]:3000/o/r/mrs/2"),
    ])
    func webURL(_ instance: String, _ path: String, _ url: String) throws {
        let destination = try #require(NotificationDestination(path: path))
        #expect(Links.webURL(for: destination, on: try GitbayInstance(parsing: instance)) == url)
    }

    @Test(arguments: [
        ("https://gitbay.org/", "https://gitbay.org/notifications"),
        ("https://example.com:8443/git", "https://example.com:8443/git/notifications"),
    ])
    func inboxURL(_ instance: String, _ url: String) throws {
        #expect(Links.inboxURL(on: try GitbayInstance(parsing: instance)) == url)
    }
}
