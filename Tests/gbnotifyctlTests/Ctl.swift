import Foundation
import Testing
import TestSupport

/// Runs the built `gbnotifyctl` as a user would, in a state directory of its own, against the
/// session's real keyring (the tests run inside scripts/desktop-session).
struct Ctl {
    static let executable = Program.built("gbnotifyctl")

    let home: URL

    init() throws {
        home = FileManager.default.temporaryDirectory.appendingPathComponent("gbnotifyctl-\(UUID().uuidString)")
        // `open` and the view's `o` start what a click would: here an `xdg-open` that does
        // nothing, never a browser. A test that watches the launch puts its own first on `PATH`.
        let programs = home.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: programs, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: programs.appendingPathComponent("xdg-open").path, withDestinationPath: "/bin/true")
    }

    var stateDirectory: URL { home.appendingPathComponent("state/gbnotifyd") }

    var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_STATE_HOME"] = home.appendingPathComponent("state").path
        environment["XDG_CONFIG_HOME"] = home.appendingPathComponent("config").path
        environment["PATH"] = home.appendingPathComponent("bin").path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        return environment
    }

    var configFile: URL { home.appendingPathComponent("config/gbnotifyd/config") }

    /// Starts gbnotifyctl without waiting for it; `adding` goes into its environment too.
    func start(_ arguments: [String], stdin: String = "", adding extra: [String: String] = [:]) throws -> Program {
        try Program([Self.executable] + arguments, environment: environment.merging(extra) { $1 }, stdin: stdin)
    }

    func run(_ arguments: [String], stdin: String = "", adding extra: [String: String] = [:]) async throws -> Program.Outcome {
        try await start(arguments, stdin: stdin, adding: extra).finish()
    }

    func writeConfig(_ text: String) throws {
        try FileManager.default.createDirectory(at: configFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: configFile, atomically: true, encoding: .utf8)
    }

    /// Every file under this ctl's home, for "the token is nowhere on disk" checks.
    func allFileContents() throws -> String {
        var text = ""
        let enumerator = FileManager.default.enumerator(at: home, includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            if let data = try? Data(contentsOf: url) { text += String(decoding: data, as: UTF8.self) }
        }
        return text
    }
}


/// A stand-in with one user and a full token: the start of most tests here.
func standinWithUser(_ username: String = "cmc", scope: Standin.TokenScope = .full) async throws -> (Standin, String) {
    let standin = try await Standin.start()
    let token = try await standin.addUserWithToken(username, scope: scope)
    return (standin, token)
}
