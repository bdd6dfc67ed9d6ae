import DBus
import Foundation
import PushCore
import Synchronization
import Testing
import TestSupport

/// Issue 24: whatever text gbnotifyctl is handed, what it prints carries no control character a
/// terminal would act on. Every command runs, in a session of its own, against hostile text from
/// each place text comes from: the server (an issue, an inbox row, an error), the keyring (item
/// labels and attributes), the state file (a stored registration error), the running daemon
/// (a `Status` and the errors of its methods, from a stand-in that owns its bus name) and the
/// command line. Standard output and standard error may hold newlines and tabs, nothing else of
/// C0 or C1, no ESC and no bidi or format character; JSON has them escaped.
///
/// On cdd6bf3 `show --json` and `inbox --json` printed the server's ESC, CSI (U+009B) and bidi
/// overrides as they came, `status --json` the daemon's, `account list` the state file's and
/// `status` the daemon's words.
@Suite struct HostileOutputTests {
    /// An OSC 52 (clipboard write), a C1 CSI, a clear-screen, a bidi override and isolate, a zero
    /// width space, a carriage return, DEL, NEL, a line separator.
    static let hostile = "\u{1B}]52;c;SGk=\u{07}\u{9B}31m\u{1B}[2J\u{202E}dlrow\u{2066}\u{200B}\r\u{7F}\u{85}\u{2028}x"

    @Test func noCommandPrintsAControlCharacter() async throws {
        try await PrivateSession.run {
            let standin = try await Standin.start()
            let token = try await standin.addUserWithToken("cmc")
            let host = String(standin.url.dropFirst("http://".count))
            let account = "cmc@\(host)"
            // The server: an issue, an inbox row and an error, each with the hostile text.
            let number = try await standin.addItem(.issue, repo: "krz/evil", data: try Self.issue())
            try await standin.addNotification(for: "cmc", repo: "krz/evil", summary: Self.hostile, path: "krz/evil/issues/\(number)")
            try await standin.addFault(.init(
                .status(404, body: try Self.json(["protocol_version": 1, "exit_code": 3, "error": Self.hostile])),
                match: .init(argvPrefix: ["mr", "show"]), times: 0))
            // The keyring: the account, and two items of the schema with hostile labels and
            // attributes, which every listing skips with a warning naming them.
            try await SecretTool.store(instance: standin.url, user: "cmc", token: token)
            try await SecretTool.store(label: Self.hostile, attributes: ["instance": "https://\(Self.hostile)", "user": "cmc"], secret: token)
            try await SecretTool.store(label: Self.hostile, attributes: ["instance": standin.url, "user": Self.hostile], secret: token)
            // The state file: a registration error, as `account list` shows it.
            let ctl = try Ctl()
            try FileManager.default.createDirectory(at: ctl.stateDirectory, withIntermediateDirectories: true)
            try Self.json(["version": 1, "accounts": ["cmc@\(standin.url)": ["registrationError": Self.hostile]]])
                .write(to: ctl.stateDirectory.appendingPathComponent("accounts.json"), atomically: false, encoding: .utf8)
            // The daemon: a stand-in on its bus name.
            let daemon = try await HostileDaemon.start()

            let payload = #"{"instance":"\#(standin.url)","user":"cmc"}"#
            let runs: [(arguments: [String], stdin: String)] = [
                (["account", "list"], ""), (["account", "list", "--json"], ""),
                (["status"], ""), (["status", "--json"], ""),
                (["show", account, "krz/evil/issues/\(number)"], ""), (["show", account, "krz/evil/issues/\(number)", "--json"], ""),
                (["show", account, "krz/evil/mrs/1"], ""), (["show", account, "krz/\(Self.hostile)/issues/1"], ""),
                (["inbox"], ""), (["inbox", account], ""), (["inbox", "--json"], ""), (["inbox", account, "--json"], ""),
                (["test"], ""), (["open", account, "krz/evil/issues/\(number)"], ""), (["deliver"], payload),
                (["doctor"], ""), (["doctor", "--json"], ""), (["doctor", account], ""),
                (["relay", "logout", "https://\(Self.hostile)"], ""), ([Self.hostile], ""), (["show", "--help"], ""),
                (["account", "add", standin.url], token + "\n"), (["account", "remove", account], ""),
            ]
            var printedHostileText = 0
            for run in runs {
                let outcome = try await ctl.run(run.arguments, stdin: run.stdin)
                for (stream, text) in [("standard output", outcome.stdout), ("standard error", outcome.stderr)] {
                    let found = Self.controls(in: text)
                    #expect(found.isEmpty, "gbnotifyctl \(run.arguments.map(\.debugDescription).joined(separator: " ")) printed \(found) on \(stream): \(text.debugDescription)")
                }
                // The hostile text was there to be printed: its visible part came through.
                if (outcome.stdout + outcome.stderr).contains("52;c;SGk=") { printedHostileText += 1 }
            }
            // Most commands printed it, cleaned; none printed it raw.
            #expect(printedHostileText >= runs.count / 2, "only \(printedHostileText) of \(runs.count) commands printed the hostile text")
            #expect(daemon.calls.withLock { $0 }.contains("Status"))
            await daemon.stop()
            await standin.stop()
        }
    }

    /// The controls (but newline and tab), format characters and line separators in `text`.
    static func controls(in text: String) -> [String] {
        text.unicodeScalars.filter { scalar in
            switch scalar.properties.generalCategory {
            case .control: scalar != "\n" && scalar != "\t"
            case .format, .lineSeparator, .paragraphSeparator: true
            default: false
            }
        }.map { "U+" + String($0.value, radix: 16, uppercase: true) }
    }

    static func json(_ value: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]), as: UTF8.self)
    }

    /// `issue show` data with the hostile text in every field a person reads.
    static func issue() throws -> String {
        try json([
            "author": "cmc", "body": "Body \(hostile)\n\n\tcode \(hostile)", "body_format": "md",
            "comments": [
                ["author": "alba", "body": "Comment \(hostile)", "body_format": "md", "created_at": "2026-09-19T10:00:00.000Z", "id": 17],
                ["author": "system", "body": "system \(hostile)", "created_at": "2026-09-19T11:00:00.000Z", "id": 18],
            ],
            "created_at": "2026-09-18T12:00:00.000Z", "labels": ["bug \(hostile)"], "milestone": "v1 \(hostile)", "state": "open",
            "title": "Title \(hostile)",
        ])
    }
}

/// `org.gitbay.Notify1` served by the test: `Status` answers with the hostile text in every
/// string, `Open` with it as what was opened, and every other method fails with it as the error's
/// message.
final class HostileDaemon: Sendable {
    let calls = Mutex<[String]>([])
    private let connection: DBusConnection

    static func start() async throws -> HostileDaemon {
        let daemon = HostileDaemon(connection: try await DBusConnection.connect())
        let text = HostileOutputTests.hostile
        let status = DaemonStatus(
            version: text, uptimeSeconds: 1, configPath: text, keyringWaiting: text,
            accounts: [AccountStatus(
                id: text, instance: text, user: text, state: .backingOff, lastPoll: text, lastResult: PollResult(said: text, httpStatus: nil), nextPoll: text,
                unread: 1, deviceID: 1, lastError: text)])
        let json = String(decoding: try JSONEncoder().encode(status), as: UTF8.self)
        let failure = DBusError(name: DaemonInterface.payloadDroppedError, message: text)
        let record: @Sendable (DBusMethodCall) -> Void = { [daemon] call in daemon.calls.withLock { $0.append(call.member) } }
        try await daemon.connection.export(
            path: DaemonInterface.objectPath, interface: DaemonInterface.interface, introspection: "",
            methods: [
                DBusMethod("Status", output: "s") { call in record(call); return [.string(json)] },
                DBusMethod("Reload") { call in record(call); throw failure },
                DBusMethod("Deliver", input: "s", output: "s") { call in record(call); throw failure },
            ])
        try #require(try await daemon.connection.requestName(DaemonInterface.busName))
        return daemon
    }

    private init(connection: DBusConnection) {
        self.connection = connection
    }

    func stop() async {
        await connection.close()
    }
}
