import Foundation
import Testing
@testable import PushCore

/// The manual page and the README say what the key declarations say: each key's `.TP` header in
/// gbnotifyd.conf(5), per section, and the README's table of keys.
@Suite struct ConfigKeysDocumentationTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The `.TP` headers of a section of the page, in order.
    static func headers(in section: String) throws -> [String] {
        let page = try String(contentsOf: root.appendingPathComponent("packaging/man/gbnotifyd.conf.5"), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(page.firstIndex(of: ".SH \(section)")) + 1
        let end = page[start...].firstIndex { $0.hasPrefix(".SH ") } ?? page.endIndex
        let lines = page[start..<end]
        return zip(lines, lines.dropFirst()).filter { $0.0 == ".TP" }.map(\.1)
    }

    @Test func theManualHasAHeaderForEveryGlobalKeyInItsOrder() throws {
        #expect(try Self.headers(in: "KEYS") == ConfigKeys.global.map(\.manualHeader))
    }

    @Test func theManualHasAHeaderForEveryAccountKeyTheRuleEffectsTogether() throws {
        let effects = ConfigKeys.account.filter { key in ConfigKeys.rule.contains { $0.name == key.name } }
        let own = ConfigKeys.account.filter { key in !effects.contains { $0.name == key.name } }
        let together = ".BR " + effects.map(\.name).joined(separator: " \", \" ")
        #expect(try Self.headers(in: "ACCOUNT SECTIONS") == own.map(\.manualHeader) + [together])
    }

    @Test func theManualHasAHeaderForEveryRuleKeyInItsOrder() throws {
        #expect(try Self.headers(in: "RULES") == ConfigKeys.rule.map(\.manualHeader))
    }

    @Test func theReadmesTableOfKeysIsTheDeclarations() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let begin = "<!-- config keys: ConfigKeys.markdownTable -->\n"
        let after = try #require(readme.firstRange(of: begin).map { readme[$0.upperBound...] })
        let written = after.split(separator: "\n\n", maxSplits: 1).first.map(String.init)
        #expect(written == ConfigKeys.markdownTable, "README.md's table of keys, expected:\n\(ConfigKeys.markdownTable)")
    }

    @Test func everyNumericKeyParsesExactlyItsDeclaredRange() throws {
        for key in ConfigKeys.global {
            guard let range = key.range else { continue }
            #expect(throws: Never.self) { try Config.parse("\(key.name) = \(range.lowerBound)\n") }
            #expect(throws: ConfigError.self) { try Config.parse("\(key.name) = \(range.lowerBound - 1)\n") }
            #expect(throws: ConfigError.self) { try Config.parse("\(key.name) = \(range.upperBound + 1)\n") }
        }
    }
}
