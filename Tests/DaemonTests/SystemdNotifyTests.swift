import Daemon
import Foundation
import Glibc
import Testing

@Suite struct SystemdNotifyTests {
    @Test func readinessReachesASocketPath() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("notify-\(UUID().uuidString)").path
        let socket = try NotifySocket(path: path)
        let notifier = try #require(SystemdNotifier(environment: ["NOTIFY_SOCKET": path]))
        #expect(notifier.notify("READY=1\nSTATUS=Polling 2 accounts"))
        #expect(try await socket.receive() == "READY=1\nSTATUS=Polling 2 accounts")
    }

    @Test func readinessReachesAnAbstractSocket() async throws {
        let name = "@gbnotify-test-\(UUID().uuidString)"
        let socket = try NotifySocket(path: name)
        let notifier = try #require(SystemdNotifier(environment: ["NOTIFY_SOCKET": name]))
        #expect(notifier.notify("STOPPING=1"))
        #expect(try await socket.receive() == "STOPPING=1")
    }

    @Test(arguments: [[:], ["NOTIFY_SOCKET": ""], ["NOTIFY_SOCKET": "relative/path"], ["NOTIFY_SOCKET": "/" + String(repeating: "x", count: 200)]])
    func nothingToNotifyWithoutAUsableSocket(environment: [String: String]) {
        #expect(SystemdNotifier(environment: environment) == nil)
    }
}
