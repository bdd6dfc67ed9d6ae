import DBus
import Logging
import MainLoop
import PushCore

/// NetworkManager's word on the network, over the system bus: its `State` and `Connectivity`
/// properties, followed through `StateChanged` and `PropertiesChanged`. Where it does not run,
/// the network is `unknown` and the daemon behaves as without it.
enum NetworkWatch {
    static let busName = "org.freedesktop.NetworkManager"
    static let path = "/org/freedesktop/NetworkManager"
    static let interface = "org.freedesktop.NetworkManager"

    /// Follows NetworkManager on `connection`, in the tasks returned (on the loop, as the
    /// supervisor is); `changed` hears each state, the first one too, by a call.
    @LoopActor
    static func start(
        on connection: DBusConnection, logger: Logger, changed: @escaping @LoopActor (NetworkState) -> Void
    ) async throws -> [Task<Void, Never>] {
        let owners = try await connection.watchNameOwner(busName)
        let signals = try await connection.signals(matching: DBusMatchRule(path: path))
        let reading = Reading(changed: changed)
        return [
            Task {
                for await owner in owners {
                    reading.reset(owner: owner)
                    guard owner != nil else { continue }
                    let state = await property("State", on: connection)
                    let connectivity = await property("Connectivity", on: connection)
                    reading.learn(state: state, connectivity: connectivity, isNews: false)
                }
            },
            Task {
                for await signal in signals where signal.sender == reading.owner {
                    switch (signal.interface, signal.member) {
                    case (interface, "StateChanged"):
                        guard let state = signal.arguments.first?.uint32Value else { continue }
                        reading.learn(state: state, connectivity: nil, isNews: true)
                    case ("org.freedesktop.DBus.Properties", "PropertiesChanged"):
                        guard signal.arguments.first?.stringValue == interface,
                              let changed = signal.arguments.dropFirst().first?.vardictValue
                        else { continue }
                        let state = changed["State"]?.variantValue?.uint32Value ?? changed["State"]?.uint32Value
                        let connectivity = changed["Connectivity"]?.variantValue?.uint32Value ?? changed["Connectivity"]?.uint32Value
                        guard state != nil || connectivity != nil else { continue }
                        reading.learn(state: state, connectivity: connectivity, isNews: true)
                    default:
                        continue
                    }
                }
            },
        ]
    }

    private static func property(_ name: String, on connection: DBusConnection) async -> UInt32? {
        let reply = try? await connection.call(
            destination: busName, path: path, interface: "org.freedesktop.DBus.Properties", member: "Get",
            arguments: [.string(interface), .string(name)])
        return reply?.first?.variantValue?.uint32Value
    }

    /// NetworkManager's owner and the last `State` and `Connectivity` it gave, and the network
    /// they make, handed on in the order they were learnt.
    ///
    /// The first values (read with `Get` when NetworkManager appears) and its signals arrive on
    /// two tasks, so an answer to `Get` can be handled after a signal sent later: a value a
    /// signal gave is never replaced by a first read. Both tasks run on the loop, so no lock.
    @LoopActor
    private final class Reading {
        private struct Values {
            var owner: String?
            var state: UInt32?
            var connectivity: UInt32?
        }

        private var values = Values()
        private let changed: @LoopActor (NetworkState) -> Void

        init(changed: @escaping @LoopActor (NetworkState) -> Void) {
            self.changed = changed
        }

        var owner: String? { values.owner }

        /// A new owner (nil: none, so the network is unknown); nothing is known of it yet.
        func reset(owner: String?) {
            values = Values(owner: owner)
            if owner == nil { changed(.unknown) }
        }

        /// Takes what NetworkManager said (`isNews`: in a signal, so newer than anything known)
        /// and hands on the network it makes.
        func learn(state: UInt32?, connectivity: UInt32?, isNews: Bool) {
            if let state, isNews || values.state == nil { values.state = state }
            if let connectivity, isNews || values.connectivity == nil { values.connectivity = connectivity }
            changed(NetworkState(networkManagerState: values.state, connectivity: values.connectivity))
        }
    }
}
