import Foundation
import Glibc
import Keyring
import PushCore
import TestSupport
import Testing

/// `make demo` (scripts/demo, which `make demo` runs once it has built): gbnotify working by
/// itself against the stand-ins, on a desktop and without one, and everything as it was after
/// Ctrl-C.
@Suite struct DemoTests {
    static let script = "\(Standin.packageRoot)/scripts/demo"

    /// Without a session bus or a display, the demo runs in a private desktop session of its
    /// own, and 15 s after gbnotifyd starts takes a picture of the notifications on its dunst.
    @Test func withoutADesktopItShowsNotificationsInAPrivateSessionAndTakesTheirPicture() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let picture = directory.appendingPathComponent("notifications.png").path
        var environment = Self.environment(temporaryDirectory: directory)
        for name in ["DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY", "PRIVATE_DESKTOP_SESSION"] {
            environment[name] = nil
        }
        // Nor a bus where GLib would look without an address.
        environment["XDG_RUNTIME_DIR"] = directory.path
        environment["DEMO_SCREENSHOT"] = picture

        let demo = try RunningDaemon(argv: [Self.script], environment: environment, withStandardOutput: true)
        // "a picture of them: PATH", or "no picture: ..."
        let lines = try await demo.waitForLine(containing: "picture", timeout: .seconds(120))
        #expect(lines.contains { $0.hasPrefix("demo: no desktop here") })
        #expect(lines.contains { $0.hasPrefix("demo: the first notification came ") })
        let onScreen = try #require(lines.first { $0.contains("a picture of them: ") }, "\(lines)")
        #expect(onScreen.hasSuffix(picture), "\(onScreen)")
        // A PNG, cropped to what is on screen: wider and taller than the frame alone.
        let png = try Data(contentsOf: URL(fileURLWithPath: picture))
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        let (width, height) = (Self.bigEndian(png, at: 16), Self.bigEndian(png, at: 20))
        #expect(width > 200 && height > 80, "\(width)×\(height)")

        demo.send(SIGINT)
        #expect(try await demo.waitForExit(timeout: .seconds(60)) == 128 + SIGINT)
        #expect(demo.lines.value.contains { $0.contains("the demo account is out of the keyring again") })
        // The demo's own directory and its desktop session's are gone, and so is every process
        // that ran in that session.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["notifications.png"])
        #expect(Self.processes(withEnvironment: "DEMO_SCREENSHOT=\(picture)").isEmpty)
    }

    /// On a desktop (this test's own session: keyring, dunst), the demo shows its notifications
    /// there, a click opens the stand-in's page, and after Ctrl-C the keyring, the user's config
    /// and the user's state are as they were.
    @Test func onADesktopItLeavesTheKeyringConfigAndStateAsTheyWere() async throws {
        try await PrivateSession.run(notifications: true) {
            let directory = try Self.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let home = ProcessInfo.processInfo.environment
            let userConfig = "\(home["XDG_CONFIG_HOME"] ?? "")/gbnotifyd/config"
            let userState = "\(home["XDG_STATE_HOME"] ?? "")/gbnotifyd"
            try FileManager.default.createDirectory(
                atPath: (userConfig as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data("poll-interval = 60\n".utf8).write(to: URL(fileURLWithPath: userConfig))
            // An account of the user's own, which must come through untouched.
            let keyring = Keyring()
            let own = try Account(instance: try GitbayInstance(parsing: "https://gitbay.example"), username: "cmc")
            try await keyring.store(try APIToken("gb_\(String(repeating: "a", count: 40))"), for: own)
            let accountsBefore = try await keyring.list().accounts.map(\.account)

            var environment = Self.environment(temporaryDirectory: directory)
            try FileManager.default.createDirectory(at: directory.appendingPathComponent("bin"), withIntermediateDirectories: false)
            let browser = try OpenerStub(at: directory.appendingPathComponent("bin/xdg-open").path)
            defer { browser.close() }
            environment["PATH"] = "\(directory.path)/bin:\(environment["PATH"] ?? "/usr/bin:/bin")"
            let demo = try RunningDaemon(argv: [Self.script], environment: environment, withStandardOutput: true)
            let lines = try await demo.waitForLine(containing: "demo: the first notification came ", timeout: .seconds(60))
            #expect(!lines.contains { $0.hasPrefix("demo: no desktop here") })
            #expect(try await Dunst.displayed() >= 1)
            let announced = lines.compactMap { $0.firstMatch(of: #/a gitbay stand-in at (\S+) /#)?.1 }.first
            let standin = try #require(announced.map(String.init))

            try await Dunst.ctl("action", "0")
            let opened = try await browser.nextLaunch()
            let page = try #require(opened.arguments.last)
            #expect(page.hasPrefix("\(standin)/"), "\(page)")
            let served = try await Program.run(["curl", "-fsS", "-o", "/dev/null", "-w", "%{http_code}", page], environment: environment)
            #expect(served.stdout == "200", "\(served.stderr)")

            demo.send(SIGINT)
            #expect(try await demo.waitForExit(timeout: .seconds(60)) == 128 + SIGINT)
            #expect(try await keyring.list().accounts.map(\.account) == accountsBefore)
            #expect(try String(contentsOfFile: userConfig, encoding: .utf8) == "poll-interval = 60\n")
            #expect(!FileManager.default.fileExists(atPath: userState))
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["bin"])
            _ = try await keyring.delete(own)
        }
    }

    /// This process's environment, with the built programs and a temporary directory of the
    /// test's own for the demo's files.
    private static func environment(temporaryDirectory: URL) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["GBNOTIFY_BIN"] = URL(fileURLWithPath: Program.built("gbnotifyd")).deletingLastPathComponent().path
        environment["TMPDIR"] = temporaryDirectory.path
        return environment
    }

    /// Short: the demo's desktop session makes its bus socket below it, and a socket's path has
    /// room for 107 bytes.
    private static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("demo-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        return directory
    }

    private static func bigEndian(_ data: Data, at offset: Int) -> Int {
        data.dropFirst(offset).prefix(4).reduce(0) { $0 << 8 | Int($1) }
    }

    /// The processes whose environment holds `entry`, this one aside.
    private static func processes(withEnvironment entry: String) -> [String] {
        let own = "\(getpid())"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.filter { $0.allSatisfy(\.isNumber) && $0 != own }.filter { pid in
            guard let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return false }
            return environ.split(separator: 0).contains { Data($0) == Data(entry.utf8) }
        }
    }
}
