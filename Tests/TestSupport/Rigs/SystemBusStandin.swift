import DBus
import Foundation

/// A private bus standing in for the system bus, with systemd-logind and NetworkManager played by
/// `Tests/Standin/system_bus_standin.py` (their real names, objects, signals, properties and
/// errors; logind's `Inhibit` hands out a real file descriptor), driven from the test: sleep,
/// resume, the network going and coming back, either service leaving or returning.
///
/// A gbnotifyd under test reaches it through `environment` (`DBUS_SYSTEM_BUS_ADDRESS`);
/// `noSystemBus` is the environment of a machine without one. It stops with its test process,
/// like the other stand-ins.
public final class SystemBusStandin: Sendable {
    /// NetworkManager's `NMState`.
    public enum NetworkState: UInt32, Sendable, Codable {
        case unknown = 0, asleep = 10, disconnected = 20, disconnecting = 30, connecting = 40
        case connectedLocal = 50, connectedSite = 60, connectedGlobal = 70
    }

    /// NetworkManager's `NMConnectivityState`.
    public enum Connectivity: UInt32, Sendable, Codable {
        case unknown = 0, none = 1, portal = 2, limited = 3, full = 4
    }

    /// One change NetworkManager makes: its properties, in one PropertiesChanged, then
    /// StateChanged when the state changed.
    public struct NetworkStep: Sendable, Encodable {
        public var state: NetworkState?
        public var connectivity: Connectivity?

        public init(state: NetworkState? = nil, connectivity: Connectivity? = nil) {
            self.state = state
            self.connectivity = connectivity
        }

        /// What NetworkManager does as the link goes: disconnecting, then disconnected with no
        /// connectivity.
        public static let goingOffline = [
            NetworkStep(state: .disconnecting), NetworkStep(state: .disconnected, connectivity: Connectivity.none),
        ]
        /// What it does as the link comes back: connecting, then connected with full connectivity.
        public static let comingOnline = [
            NetworkStep(state: .connecting), NetworkStep(state: .connectedGlobal, connectivity: .full),
        ]
    }

    /// One inhibitor logind gave out (`taken` and `released`: the stand-in's monotonic clock,
    /// in seconds; compare differences only).
    public struct Inhibitor: Sendable, Decodable, Equatable {
        public let id: Int
        public let what: String
        public let who: String
        public let why: String
        public let mode: String
        public let uid: UInt32
        public let pid: UInt32
        public let taken: Double
        public let released: Double?
    }

    /// What a `sleep()` waited for.
    public struct Sleep: Sendable, Decodable {
        /// From PrepareForSleep(true) to "asleep", in seconds.
        public let waited: Double
        /// The delay inhibitors of "sleep" held when it began.
        public let delayedBy: [Inhibitor]
        /// They were not all released within InhibitDelayMaxUSec; logind sleeps anyway.
        public let timedOut: Bool
    }

    public struct State: Sendable, Decodable {
        public struct Logind: Sendable, Decodable {
            public let preparingForSleep: Bool
            public let inhibitDelayMax: Double
            /// Every inhibitor ever taken, oldest first.
            public let inhibitors: [Inhibitor]
        }

        public struct NetworkManager: Sendable, Decodable {
            public let state: NetworkState
            public let connectivity: Connectivity
        }

        public let address: String
        /// nil when logind is not on the bus.
        public let logind: Logind?
        /// nil when NetworkManager is not on the bus.
        public let networkManager: NetworkManager?
    }

    /// The bus's address, for DBUS_SYSTEM_BUS_ADDRESS.
    public let address: String
    private let process: Standin

    /// The environment of a machine with no system bus at all: an address where none listens
    /// (unset, libdbus would try the host's real one).
    public static let noSystemBus = ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/gbnotify-tests/system_bus_socket"]

    /// `environment` with DBUS_SYSTEM_BUS_ADDRESS pointing here.
    public func environment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> [String: String] {
        environment.merging(["DBUS_SYSTEM_BUS_ADDRESS": address]) { $1 }
    }

    /// - Parameters:
    ///   - logind, networkManager: whether each is on the bus at the start.
    ///   - online: NetworkManager's first state: connected globally with full connectivity, or
    ///     disconnected with none.
    ///   - networkFollowsSleep: NetworkManager goes asleep with the machine and reconnects after
    ///     the resume, as the real one does.
    ///   - inhibitDelayMax: logind's InhibitDelayMaxSec (5 s by default, as logind's).
    public static func start(
        logind: Bool = true, networkManager: Bool = true, online: Bool = true, networkFollowsSleep: Bool = true,
        inhibitDelayMax: Duration = .seconds(5)
    ) async throws -> SystemBusStandin {
        var arguments = [
            "--network", online ? "online" : "offline",
            "--inhibit-delay-max", String(Double(inhibitDelayMax.components.seconds) + Double(inhibitDelayMax.components.attoseconds) / 1e18),
        ]
        if !logind { arguments.append("--no-logind") }
        if !networkManager { arguments.append("--no-network-manager") }
        if !networkFollowsSleep { arguments.append("--network-ignores-sleep") }
        // Debian's own Python, as its #! line says: the script needs its gi (python3-gi).
        let process = try await Standin.launch(
            "system_bus_standin.py", arguments, interpreter: "/usr/bin/python3", caFile: nil)
        do {
            let state: State = try await ControlAPI(root: "\(process.url)/_system", caFile: nil).get("state")
            return SystemBusStandin(process: process, address: state.address)
        } catch {
            await process.stop()
            throw error
        }
    }

    private init(process: Standin, address: String) {
        self.process = process
        self.address = address
    }

    public func stop() async {
        await process.stop()
    }

    /// A new connection to this bus; the caller closes it.
    public func connect() async throws -> DBusConnection {
        try await DBusConnection.connect(to: .address(address))
    }

    public func state() async throws -> State {
        try await control.get("state")
    }

    /// logind's suspend: PrepareForSleep(true), then it waits until every delay inhibitor of
    /// "sleep" is released or InhibitDelayMaxUSec has passed, and returns "asleep". Throws
    /// while a block inhibitor of "sleep" is held (logind refuses) or with no logind.
    @discardableResult
    public func sleep() async throws -> Sleep {
        try await control.post("sleep", Empty())
    }

    /// PrepareForSleep(false). NetworkManager, where it follows sleep, is connecting and then
    /// back as it was; with `networkBack` false it stays disconnected.
    public func resume(networkBack: Bool = true) async throws {
        struct Body: Encodable { let network: String }
        try await control.post("resume", Body(network: networkBack ? "restore" : "offline"))
    }

    /// NetworkManager makes these changes, in order, each with its signals.
    public func network(_ steps: [NetworkStep]) async throws {
        struct Body: Encodable { let steps: [NetworkStep] }
        try await control.post("network", Body(steps: steps))
    }

    public func goOffline() async throws {
        try await network(NetworkStep.goingOffline)
    }

    public func goOnline() async throws {
        try await network(NetworkStep.comingOnline)
    }

    /// logind or NetworkManager leaves the bus (as if it crashed: its name vanishes, logind's
    /// inhibitors with it) or comes back (owns its name again, in the state it had).
    public func setPresence(logind: Bool? = nil, networkManager: Bool? = nil) async throws {
        struct Body: Encodable {
            let logind: Bool?
            let networkManager: Bool?
            enum CodingKeys: String, CodingKey { case logind, networkManager = "network_manager" }
        }
        let _: State = try await control.post("presence", Body(logind: logind, networkManager: networkManager))
    }

    /// Every inhibitor, once at least `held` are held and `released` have been released.
    @discardableResult
    public func waitForInhibitors(held: Int = 0, released: Int = 0, timeout: Duration = .seconds(15)) async throws -> [Inhibitor] {
        struct Reply: Decodable { let inhibitors: [Inhibitor]; let timedOut: Bool }
        let reply: Reply = try await control.get(
            "inhibitors/wait?held=\(held)&released=\(released)&timeout=\(timeout.components.seconds)")
        guard !reply.timedOut else {
            throw TimedOut(description: "waited \(timeout) for \(held) held and \(released) released inhibitors: \(reply.inhibitors)")
        }
        return reply.inhibitors
    }

    private struct Empty: Codable {}

    private var control: ControlAPI { ControlAPI(root: "\(process.url)/_system", caFile: nil) }
}
