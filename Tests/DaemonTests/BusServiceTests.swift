import DBus
import Daemon
import Foundation
import PushCore
import Settings
import Testing

/// `Reload()` and `Status()` over a real bus. The object is reached by the serving
/// connection's unique name: the well-known name belongs to the daemon binary's tests.
@Suite(.needsDesktopSession) struct BusServiceTests {
    @Test func statusAndReloadAnswerOverTheBus() async throws {
        try await Harness.run(1) { harness in
            let configFile = harness.directory.appendingPathComponent("config").path
            let supervisor = harness.supervisor(loadSettings: { () throws(ConfigFileError) in
                var settings = try ConfigFile.load(configFile)
                settings.pollInterval = DaemonSettings.forTests.pollInterval
                return settings
            })
            try await supervisor.start()
            // The first poll has been answered once the second is on its way.
            try await harness.waitForListRequests(2, on: 0)
            let server = try await DBusConnection.connect()
            let client = try await DBusConnection.connect()
            try await BusService.export(supervisor, on: server)

            func call(_ member: String) async throws -> [DBusValue] {
                try await client.call(
                    destination: server.uniqueName, path: DaemonInterface.objectPath,
                    interface: DaemonInterface.interface, member: member)
            }

            let reply = try await call("Status")
            let json = try #require(reply.first?.stringValue)
            let status = try JSONDecoder().decode(DaemonStatus.self, from: Data(json.utf8))
            #expect(status.accounts.map(\.id) == [harness.instances[0].account.id])
            #expect(status.accounts.first?.state == .ok)
            #expect(status.configPath == configFile)
            // No device token in the status: it is a relay topic, which `account list --json` shows.
            let topic = try #require(try harness.state.loadAccounts().state.accounts[harness.instances[0].account.id]?.deviceToken)
            #expect(!json.contains(String(topic.prefix(9))))
            #expect(json.contains(#""last_error" : null"#))

            #expect(try await call("Reload").isEmpty)
            try "poll-interval = fast\n".write(toFile: configFile, atomically: true, encoding: .utf8)
            do {
                _ = try await call("Reload")
                Issue.record("Reload() with a bad config succeeded")
            } catch let error as DBusError {
                #expect(error.name == "org.gitbay.Notify1.Error.ReloadFailed")
                #expect(error.message.contains("line 1: poll-interval: \"fast\" is not a whole number of seconds"))
            }

            let introspection = try await client.call(
                destination: server.uniqueName, path: DaemonInterface.objectPath,
                interface: "org.freedesktop.DBus.Introspectable", member: "Introspect")
            let xml = try #require(introspection.first?.stringValue)
            #expect(xml.contains(#"<method name="Reload"/>"#))
            #expect(xml.contains(#"<arg name="status_json" type="s" direction="out"/>"#))
            await client.close()
            await server.close()
        }
    }
}
