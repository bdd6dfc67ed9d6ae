import Foundation
import Glibc
import Testing
import TestSupport

/// Issue 24: `show`, `inbox ACCOUNT` and `open` read the token of the account they use and no
/// other. Seen on the bus, in a session of its own (its own gnome-keyring): `dbus-monitor`
/// records every `GetSecrets` (and `GetSecret`) call, and the item paths they name are matched
/// to the items `secret-tool` stored. Three accounts: cmc, and bob on the same instance, and a
/// cmc on a second instance, whose item the lookup by `user` finds but must not read.
///
/// On cdd6bf3 each of these commands read every account's token (`Keyring.list()`).
@Suite struct TokenReadingTests {
    @Test func aCommandReadsOnlyTheTokenOfTheAccountItUses() async throws {
        try await PrivateSession.run {
            let standin = try await Standin.start()
            let other = try await Standin.start()
            let host = String(standin.url.dropFirst("http://".count))
            for (instance, user) in [(standin, "cmc"), (standin, "bob"), (other, "cmc")] {
                try await SecretTool.store(instance: instance.url, user: user, token: try await instance.addUserWithToken(user))
            }
            let number = try await standin.addItem(.build, repo: "krz/tokens", data: ViewWorld.build)
            try await standin.addNotification(for: "cmc", repo: "krz/tokens", path: "krz/tokens/builds/\(number)")
            let paths = try await Self.itemPaths()
            let cmc = try #require(paths["\(standin.url) cmc"], "\(paths)")
            #expect(paths.count == 3, "\(paths)")

            let ctl = try Ctl()
            for arguments in [
                ["show", "cmc@\(host)", "krz/tokens/builds/\(number)"], ["show", "cmc@\(host)", "krz/tokens/builds/\(number)", "--json"],
                ["inbox", "cmc@\(host)"], ["inbox", "cmc@\(host)", "--json"], ["open", "cmc@\(host)", "krz/tokens/builds/\(number)"],
            ] {
                let monitor = try await SecretReads.start()
                let outcome = try await ctl.run(arguments)
                let read = await monitor.finish()
                if arguments[0] != "open" {
                    #expect(outcome.status == 0, "\(arguments): \(outcome.stderr)")
                    #expect(read == [cmc], "gbnotifyctl \(arguments.joined(separator: " ")) read the secrets of \(read), not only \(cmc)")
                } else {
                    // It opens by itself (an `xdg-open` that does nothing, here), with no token.
                    #expect(outcome.status == 0, "\(arguments): \(outcome.stderr)")
                    #expect(read.isEmpty, "gbnotifyctl open read the secrets of \(read)")
                }
            }
            // `inbox` of every account reads every account's token: the monitor sees them all.
            let monitor = try await SecretReads.start()
            #expect(try await ctl.run(["inbox"]).status == 0)
            #expect(await monitor.finish() == Set(paths.values))
            await standin.stop()
            await other.stop()
        }
    }

    /// Each account item's object path as secret-tool names it (`/1`: the path within its
    /// collection), by "INSTANCE USER".
    static func itemPaths() async throws -> [String: String] {
        let found = try await SecretTool.run(["search", "--all", "xdg:schema", SecretTool.accountSchema])
        // secret-tool writes each item's "[PATH]", "label = ...", "secret = ..." and the rest on
        // standard output, and its "attribute.NAME = VALUE" lines on standard error, in one order.
        let names = found.stdout.split(separator: "\n").filter { $0.hasPrefix("[") }.map { String($0.dropFirst().dropLast()) }
        var blocks: [[String: String]] = []
        for line in found.stderr.split(separator: "\n") {
            guard let match = line.firstMatch(of: #/^attribute\.(\w+) = (.*)$/#) else { continue }
            // Every item has both attributes: a name seen again starts the next item's.
            if blocks.isEmpty || blocks[blocks.count - 1][String(match.1)] != nil { blocks.append([:]) }
            blocks[blocks.count - 1][String(match.1)] = String(match.2)
        }
        try #require(names.count == blocks.count, "\(found)")
        var paths: [String: String] = [:]
        for (path, attributes) in zip(names, blocks) {
            if let instance = attributes["instance"], let user = attributes["user"] { paths["\(instance) \(user)"] = path }
        }
        return paths
    }
}

/// `dbus-monitor` on the session bus, noting the item paths named in every call that hands out
/// secrets: `Service.GetSecrets` (what libsecret calls) and `Item.GetSecret`.
struct SecretReads {
    let process: Program

    static func start() async throws -> SecretReads {
        let process = try Program(
            ["sh", "-c", "exec dbus-monitor --session \"$0\" \"$1\" >&2", "type='method_call',member='GetSecrets'",
             "type='method_call',member='GetSecret'"],
            environment: ProcessInfo.processInfo.environment)
        // It gives up its bus name once it monitors.
        let deadline = ContinuousClock.now + .seconds(10)
        while !process.stderrSoFar.contains("member=NameLost") {
            try #require(ContinuousClock.now < deadline, "dbus-monitor did not start: \(process.stderrSoFar)")
            try await Task.sleep(for: .milliseconds(20))
        }
        return SecretReads(process: process)
    }

    /// Stops the monitor; the item paths whose secrets were asked for, within their collection
    /// (`/1`), as secret-tool names them.
    func finish() async -> Set<String> {
        process.signal(SIGTERM)
        let lines = await process.finish().stderr.split(separator: "\n")
        var paths: Set<String> = []
        var inCall = false
        for line in lines {
            if line.hasPrefix("method call") {
                inCall = line.contains("member=GetSecrets")
                if line.contains("member=GetSecret;") || line.hasSuffix("member=GetSecret"),
                   let path = line.firstMatch(of: #/path=/org/freedesktop/secrets/collection/[^/;]+(/[^;]+);/#) {
                    paths.insert(String(path.1))
                }
            } else if inCall, let path = line.firstMatch(of: #/object path "/org/freedesktop/secrets/collection/[^/"]+(/[^"]+)"/#) {
                paths.insert(String(path.1))
            } else if !line.hasPrefix(" ") {
                inCall = false
            }
        }
        return paths
    }
}
