import DesktopSuites
import Foundation
import Testing
import TestSupport

/// `gbnotifyctl relay login|logout` against the session's real keyring. The relay is never
/// contacted, so each test names a relay of its own that does not exist.
@Suite(.needsDesktopSession) struct RelayCommandTests {
    static func uniqueRelay() -> String {
        "https://relay-\(UUID().uuidString.prefix(8).lowercased()).example"
    }

    static func lookup(_ relay: String) async throws -> String? {
        let run = try await Program.run(
            ["secret-tool", "lookup", "xdg:schema", "org.gitbay.Relay", "url", relay],
            environment: ProcessInfo.processInfo.environment)
        return run.status == 0 ? run.stdout : nil
    }

    @Test func loginStoresTheTokenFromStandardInputAndLogoutDeletesIt() async throws {
        let ctl = try Ctl()
        let relay = Self.uniqueRelay()
        let token = "tk_\(UUID().uuidString.prefix(12))"

        let login = try await ctl.run(["relay", "login", relay + "/"], stdin: token + "\n")
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stdout == "Stored the access token for the relay \(relay).\n")
        #expect(!login.stdout.contains(token) && !login.stderr.contains(token))
        #expect(try await Self.lookup(relay) == token)

        let logout = try await ctl.run(["relay", "logout", relay])
        #expect(logout.status == 0, "\(logout.stderr)")
        #expect(logout.stdout == "Deleted the access token for the relay \(relay).\n")
        #expect(try await Self.lookup(relay) == nil)

        let again = try await ctl.run(["relay", "logout", relay])
        #expect(again.status == 0)
        #expect(again.stdout == "No access token was stored for the relay \(relay).\n")
    }

    /// Its error in the session's language.
    @Test(arguments: [("en", "no token given;"), ("de", "kein Token angegeben;"), ("fr", "aucun jeton fourni\u{a0};")])
    func anEmptyTokenStoresNothing(_ language: String, _ error: String) async throws {
        let ctl = try Ctl()
        let relay = Self.uniqueRelay()
        let login = try await ctl.run(["relay", "login", relay], stdin: "\n", adding: try await Translations.environment(language))
        #expect(login.status != 0)
        #expect(login.stderr.contains(error), "\(login.stderr)")
        #expect(try await Self.lookup(relay) == nil)
    }

    @Test func plainHTTPToAnotherMachineIsRefused() async throws {
        let ctl = try Ctl()
        let login = try await ctl.run(["relay", "login", "http://relay.example"], stdin: "tk_x\n")
        #expect(login.status != 0)
        #expect(try await Self.lookup("http://relay.example") == nil)
    }

    @Test func helpNamesBothCommands() async throws {
        let help = try await Ctl().run(["relay", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("login"))
        #expect(help.stdout.contains("logout"))
        #expect(help.stdout.contains("keyring"))
    }
}
