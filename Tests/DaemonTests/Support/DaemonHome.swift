import Foundation
import Glibc
import PushCore
import Synchronization
import TestSupport
import Testing

/// A home of its own for the daemon and gbnotifyctl: config, state, and the environment that
/// points at them. The machine's system bus is never reached: there is none (tests of sleep
/// and the network give a stand-in's address instead).
struct DaemonHome {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("gbnotifyd-home-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("config/gbnotifyd"), withIntermediateDirectories: true)
    }

    var configFile: String { directory.appendingPathComponent("config/gbnotifyd/config").path }
    var stateDirectory: String { directory.appendingPathComponent("state/gbnotifyd").path }
    var notifySocket: String { directory.appendingPathComponent("notify").path }

    var environment: [String: String] { environment(on: ProcessInfo.processInfo.environment) }

    /// `base` with the config and state directories and the readiness socket pointing here.
    func environment(on base: [String: String]) -> [String: String] {
        var environment = base
        environment["XDG_CONFIG_HOME"] = directory.appendingPathComponent("config").path
        environment["XDG_STATE_HOME"] = directory.appendingPathComponent("state").path
        environment["NOTIFY_SOCKET"] = notifySocket
        return environment.merging(SystemBusStandin.noSystemBus) { $1 }
    }

    func writeConfig(_ text: String) throws {
        try text.write(toFile: configFile, atomically: true, encoding: .utf8)
    }

    /// gbnotifyctl in this home, with `adding` set too (a language's variables).
    func ctl(_ arguments: [String], input: String = "", adding: [String: String] = [:]) async throws -> Program.Outcome {
        try await Program.run(
            [Program.built("gbnotifyctl")] + arguments, environment: environment.merging(adding) { $1 }, stdin: input)
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}
