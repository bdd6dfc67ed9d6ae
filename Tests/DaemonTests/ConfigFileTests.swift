import Daemon
import Foundation
import PushCore
import Settings
import Testing

@Suite struct ConfigFileTests {
    private func file(_ contents: Data) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("config-\(UUID().uuidString)").path
        try contents.write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func noFileMeansEveryDefault() throws {
        let settings = DaemonSettings(config: try ConfigFile.load("/nonexistent/gbnotifyd/config"))
        #expect(settings == DaemonSettings(config: .defaults))
        #expect(settings.pollInterval == 30)
        #expect(settings.backoffCap == 900)
        #expect(settings.registrationCheckInterval == 3600)
    }

    @Test func settingsFollowTheFile() throws {
        let path = try file(Data("poll-interval = 45\nbackoff-cap = 600\nca-file = /etc/ssl/private-ca.pem\n".utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let settings = DaemonSettings(config: try ConfigFile.load(path))
        #expect(settings.pollInterval == 45)
        #expect(settings.backoffCap == 600)
        #expect(settings.client.caFile == "/etc/ssl/private-ca.pem")
    }

    @Test func aBadValueNamesTheFileLineAndKey() throws {
        let path = try file(Data("# mine\nlog-level = loud\n".utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: ConfigFileError(path: path, problem: """
            line 2: log-level: "loud" is not one of error, warning, notice, info, debug
            """)) { try ConfigFile.load(path) }
    }

    @Test func unusableFilesAreErrorsNotCrashes() throws {
        let binary = try file(Data([0x70, 0xff, 0xfe]))
        let huge = try file(Data(repeating: UInt8(ascii: "#"), count: 200_000))
        defer {
            try? FileManager.default.removeItem(atPath: binary)
            try? FileManager.default.removeItem(atPath: huge)
        }
        #expect(throws: ConfigFileError(path: binary, problem: "it is not UTF-8 text")) { try ConfigFile.load(binary) }
        #expect(throws: ConfigFileError(path: huge, problem: "the file is larger than 64 KiB; a config file needs only a few lines")) {
            try ConfigFile.load(huge)
        }
        #expect(throws: ConfigFileError(path: "/", problem: "cannot read it: Is a directory")) { try ConfigFile.load("/") }
    }

    /// A FIFO with no writer would read as an empty file, every setting its default; a device
    /// as whatever it gives. Neither is read, nor waited on.
    @Test func specialFilesAreRefusedUnread() throws {
        let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("config-fifo-\(UUID().uuidString)").path
        try #require(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        #expect(throws: ConfigFileError(path: fifo, problem: "it is a FIFO, not a regular file")) { try ConfigFile.load(fifo) }
        #expect(throws: ConfigFileError(path: "/dev/null", problem: "it is a character device, not a regular file")) {
            try ConfigFile.load("/dev/null")
        }
    }

    /// The `ca-file` is opened by libcurl's TLS library, blocking, on the daemon's loop: a FIFO
    /// there is refused with the config. A missing one is the transfers' to report.
    @Test func aCAFileThatIsAFIFOIsRefusedWithTheConfig() throws {
        let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("ca-fifo-\(UUID().uuidString)").path
        try #require(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        let path = try file(Data("poll-interval = 20\nca-file = \(fifo)\n".utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: ConfigFileError(path: path, problem: "ca-file: \(fifo) is a FIFO, not a regular file")) { try ConfigFile.load(path) }
    }

    @Test func theDefaultPathFollowsXDG() {
        #expect(ConfigFile.defaultPath(environment: ["XDG_CONFIG_HOME": "/x/config", "HOME": "/home/u"]) == "/x/config/gbnotifyd/config")
        #expect(ConfigFile.defaultPath(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/home/u"]) == "/home/u/.config/gbnotifyd/config")
        #expect(ConfigFile.defaultPath(environment: [:]) == nil)
    }
}
