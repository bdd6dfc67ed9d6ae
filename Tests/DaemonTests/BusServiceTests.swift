import DBus
import Daemon
import DesktopSuites
import Foundation
import PushCore
import Settings
import TestSupport
import Testing

/// `Reload()` and `Status()` over a real bus. The object is reached by the serving
/// connection's unique name: the well-known name belongs to the daemon binary's tests.
@Suite(.needsDesktopSession) struct BusServiceTests {
    @Test func statusAndReloadAnswerOverTheBus() async throws {
        try await Harness.run(1) { harness in
            let configFile = harness.directory.appendingPathComponent("config").path
            let supervisor = harness.supervisor(loadSettings: { () throws(ConfigFileError) in
                var settings = DaemonSettings(config: try ConfigFile.load(configFile))
                settings.pollInterval = DaemonSettings.forTests.pollInterval
                return settings
            })
            try await supervisor.start()
            // The first poll has been answered once the second is on its way.
            try await harness.waitForListRequests(2, on: 0)
            let server = try await DBusConnection.connect()
            let client = try await DBusConnection.connect()
            try await BusService.export(supervisor, on: server, logger: harness.logger)

            // A reload reads the keyring, which every test of this process shares one at a time
            // (`KeyringSession`): under the whole suite's load that queue can outlast the bus's
            // default 25 s, so the calls wait longer. A reload that never ends still fails.
            func call(_ member: String) async throws -> [DBusValue] {
                try await client.call(
                    destination: server.uniqueName, path: DaemonInterface.objectPath,
                    interface: DaemonInterface.interface, member: member, timeout: .seconds(120))
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

    /// A caller in a Flatpak sandbox, made as Flatpak makes one (bubblewrap, a root of its own
    /// with `/.flatpak-info` in it): `Reload` and `Deliver` are refused with a clear error, and
    /// logged once per caller; `Status` still answers.
    @Test func reloadAndDeliverRefuseACallerInAFlatpakSandbox() async throws {
        try await Harness.run(1) { harness in
            let supervisor = harness.supervisor()
            try await supervisor.start()
            try await harness.waitForListRequests(1, on: 0)
            let server = try await DBusConnection.connect()
            try await BusService.export(supervisor, on: server, logger: harness.logger)
            func sandboxed(_ method: String, _ arguments: [String] = []) async throws -> Program.Outcome {
                try await SandboxedCall.gdbus(
                    ["--dest", server.uniqueName, "--object-path", DaemonInterface.objectPath, "--method",
                     "\(DaemonInterface.interface).\(method)"] + arguments,
                    environment: ProcessInfo.processInfo.environment, scratch: harness.directory)
            }

            let reload = try await sandboxed("Reload")
            #expect(reload.status != 0)
            #expect(reload.stderr.contains("org.freedesktop.DBus.Error.AccessDenied"), "\(reload.stderr)")
            #expect(reload.stderr.contains("the caller runs in a Flatpak sandbox"), "\(reload.stderr)")
            let payload = #"{"instance":"\#(harness.instances[0].account.instance.url)","user":"\#(Harness.username)"}"#
            let deliver = try await sandboxed("Deliver", [payload])
            #expect(deliver.status != 0)
            #expect(deliver.stderr.contains("org.freedesktop.DBus.Error.AccessDenied"), "\(deliver.stderr)")
            let status = try await sandboxed("Status")
            #expect(status.status == 0, "\(status.stderr)")

            let refusals = harness.log.value.filter { $0.contains("refused ") && $0.contains("Flatpak") }
            #expect(refusals.count == 2, "\(refusals)")
            #expect(refusals.allSatisfy { $0.hasPrefix("<4>refused ") })
            #expect(!harness.log.value.contains { $0.contains("reloading the config") || $0.contains("woken up by Deliver") })
            await server.close()
        }
    }

    @Test func onlyTheDaemonsOwnUserOutsideASandboxMaySteerIt() {
        #expect(BusCaller.refusal(uid: 1000, daemonUID: 1000, inFlatpak: false, securityLabel: nil) == nil)
        #expect(BusCaller.refusal(uid: 1000, daemonUID: 1000, inFlatpak: false, securityLabel: "unconfined") == nil)
        #expect(BusCaller.refusal(uid: 1001, daemonUID: 1000, inFlatpak: false, securityLabel: nil)
            == "the caller runs as user 1001, not as gbnotifyd's user 1000")
        #expect(BusCaller.refusal(uid: nil, daemonUID: 1000, inFlatpak: false, securityLabel: nil) != nil)
        #expect(BusCaller.refusal(uid: 1000, daemonUID: 1000, inFlatpak: true, securityLabel: nil) == "the caller runs in a Flatpak sandbox")
        #expect(BusCaller.refusal(uid: 1000, daemonUID: 1000, inFlatpak: false, securityLabel: "snap.firefox.firefox (enforce)")
            == "the caller runs in a Snap sandbox (snap.firefox.firefox (enforce))")
    }
}
