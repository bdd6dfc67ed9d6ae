import DBus
import Foundation
import PushCore

/// doctor's session-bus checks. Each name is looked up before anything is called on it, and
/// calls go to the owner's unique name, so that no check starts a service by D-Bus activation.
struct DoctorDesktop {
    let connection: DBusConnection

    /// A busy desktop answers in milliseconds; one that takes longer is the finding.
    private static let callTimeout = Duration.seconds(5)

    func notificationServer(maxNotifications: Int?) async -> DoctorFinding {
        let path = "/org/freedesktop/Notifications", interface = "org.freedesktop.Notifications"
        do {
            guard let owner = try await connection.nameOwner(interface) else {
                guard try await connection.activatableNames().contains(interface) else { return .noNotificationServer }
                return .notificationServer(activatable: ActivatableService.installed(offering: interface))
            }
            let information = try await call(owner, path, interface, "GetServerInformation")
            let capabilities = try await call(owner, path, interface, "GetCapabilities")
            let strings = information.map { $0.stringValue ?? "" }
            return .notificationServer(DoctorFinding.NotificationServerInfo(
                name: strings.first ?? "", vendor: strings.dropFirst().first ?? "",
                version: strings.dropFirst(2).first ?? "",
                capabilities: NotificationCapabilities(advertised: capabilities.first?.stringArrayValue ?? [])),
                maxNotifications: maxNotifications)
        } catch {
            return .notificationServer(unanswered: Self.words(error))
        }
    }

    func dock() async -> DoctorFinding {
        // A bus that cannot answer NameHasOwner has failed the session-bus check in all but name.
        .dock(present: (try? await connection.nameHasOwner("com.canonical.Unity")) == true)
    }

    /// The tray host: who owns the StatusNotifierWatcher, by its program's name. Nothing is
    /// asked of the watcher itself, so no check starts one.
    func tray(mode: Config.Tray) async -> DoctorFinding {
        guard mode != .off else { return .tray(mode: mode, host: nil, owner: nil) }
        guard let owner = try? await connection.nameOwner("org.kde.StatusNotifierWatcher") else {
            return .tray(mode: mode, host: nil, owner: nil)
        }
        let pid = try? await call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetConnectionUnixProcessID",
            [.string(owner)]
        ).first?.uint32Value
        return .tray(mode: mode, host: pid.flatMap(Self.programName), owner: owner)
    }

    /// What /proc says the process is called (`comm`): kded5, gnome-shell, panel-1-systray.
    private static func programName(_ pid: UInt32) -> String? {
        guard let name = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8) else { return nil }
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }

    /// Whether a click can go through the OpenURI portal, running or startable.
    func focus(wayland: Bool) async -> DoctorFinding {
        .focus(portal: await Self.isAvailable("org.freedesktop.portal.Desktop", on: connection), wayland: wayland)
    }

    /// systemd-logind and NetworkManager on the system bus, each running or startable.
    static func system() async -> DoctorFinding {
        let bus: DBusConnection
        do {
            bus = try await DBusConnection.connect(to: .system)
        } catch {
            return .system(nil, unreachable: "\(error)")
        }
        let services = DoctorFinding.SystemServices(
            logind: await isAvailable("org.freedesktop.login1", on: bus),
            networkManager: await isAvailable("org.freedesktop.NetworkManager", on: bus))
        await bus.close()
        return .system(services)
    }

    private static func isAvailable(_ name: String, on bus: DBusConnection) async -> Bool {
        if (try? await bus.nameHasOwner(name)) == true { return true }
        return (try? await bus.activatableNames())?.contains(name) == true
    }

    func systemdUnit() async -> DoctorFinding {
        let manager = "org.freedesktop.systemd1"
        do {
            guard let owner = try await connection.nameOwner(manager) else { return .noSystemd }
            let reply = try await call(
                owner, "/org/freedesktop/systemd1", "\(manager).Manager", "GetUnitFileState",
                [.string(DoctorFinding.unitName)])
            return .unit(state: reply.first?.stringValue ?? "")
        } catch {
            // No unit file answers with an error (FileNotFound, NoSuchUnit) rather than a state.
            return .unit(unknown: Self.words(error))
        }
    }

    /// gbnotifyd, and its relay stream when one is configured.
    func daemon() async -> [DoctorFinding] {
        switch await daemonStatus() {
        case .status(let status): [.daemon(status)] + [DoctorFinding.relay(status.relay)].compactMap { $0 }
        case .unhealthy(let finding): [finding]
        }
    }

    private enum DaemonAnswer {
        case status(DaemonStatus)
        case unhealthy(DoctorFinding)
    }

    private func daemonStatus() async -> DaemonAnswer {
        switch await DaemonCall.call(.status, timeout: DaemonCall.statusTimeout, on: connection) {
        case .replied(let reply):
            guard let (status, _) = DaemonCall.status(in: reply) else {
                return .unhealthy(.daemon(unanswered: "its answer is not a status"))
            }
            return .status(status)
        case .notRunning, .noBus:
            return .unhealthy(.daemonNotRunning)
        case .failed(let reason):
            return .unhealthy(.daemon(unanswered: reason))
        }
    }

    private func call(
        _ destination: String, _ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue] = []
    ) async throws -> [DBusValue] {
        try await connection.call(
            destination: destination, path: path, interface: interface, member: member, arguments: arguments,
            timeout: Self.callTimeout)
    }

    /// A D-Bus error reply in the peer's words, which say more than its name.
    private static func words(_ error: any Error) -> String {
        guard let error = error as? DBusError else { return "\(error)" }
        return error.message.isEmpty ? error.name : error.message
    }
}
