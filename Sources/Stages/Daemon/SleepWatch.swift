import DBus
import Logging
import MainLoop

/// systemd-logind's word on sleep, over the system bus: `PrepareForSleep(true)` before the
/// system suspends, `PrepareForSleep(false)` after it resumed. The daemon holds a delay
/// inhibitor while awake, so logind waits (up to its `InhibitDelayMaxSec`) for the state writes
/// in hand to reach the disk before it suspends; the lock is taken again after the resume.
enum SleepWatch {
    static let busName = "org.freedesktop.login1"
    static let path = "/org/freedesktop/login1"
    static let interface = "org.freedesktop.login1.Manager"

    /// Follows logind on `connection`, wherever and whenever it runs, in the tasks returned (on
    /// the loop, as the supervisor is).
    ///
    /// - Parameters:
    ///   - beforeSleep: returns once what must be on disk is.
    ///   - afterResume: the system is back.
    @LoopActor
    static func start(
        on connection: DBusConnection, logger: Logger, beforeSleep: @escaping @Sendable () async -> Void,
        afterResume: @escaping @LoopActor () -> Void
    ) async throws -> [Task<Void, Never>] {
        let owners = try await connection.watchNameOwner(busName)
        let signals = try await connection.signals(matching: DBusMatchRule(path: path, interface: interface, member: "PrepareForSleep"))
        let inhibitor = Inhibitor(connection: connection, logger: logger)
        let owner = Owner()
        return [
            Task {
                for await name in owners {
                    owner.name = name
                    if name != nil { await inhibitor.take() } else { inhibitor.release() }
                }
            },
            Task {
                // Only logind speaks for logind (on a real system bus only it can own the name).
                for await signal in signals where signal.sender == owner.name {
                    guard let sleeping = signal.arguments.first?.boolValue else { continue }
                    if sleeping {
                        logger.info("the system is going to sleep; saving the state")
                        await beforeSleep()
                        inhibitor.release()
                    } else {
                        afterResume()
                        await inhibitor.take()
                    }
                }
            },
        ]
    }

    /// The owner of logind's name, as the name watch last said; read and written on the loop.
    @LoopActor
    private final class Owner {
        var name: String?
    }

    /// A delay inhibitor lock: a descriptor logind counts while it is open. Taken and let go on
    /// the loop.
    @LoopActor
    private final class Inhibitor {
        private let connection: DBusConnection
        private let logger: Logger
        private var held: DBusFileDescriptor?

        init(connection: DBusConnection, logger: Logger) {
            self.connection = connection
            self.logger = logger
        }

        func take() async {
            do {
                let reply = try await connection.call(
                    destination: SleepWatch.busName, path: SleepWatch.path, interface: SleepWatch.interface, member: "Inhibit",
                    arguments: [
                        .string("sleep"), .string("gbnotifyd"), .string("Saving what is on screen and where each account stands"),
                        .string("delay"),
                    ])
                guard let lock = reply.first?.fileDescriptorValue else {
                    logger.warning("logind answered Inhibit without a lock; suspends will not wait for the state to be saved")
                    return
                }
                held = lock
            } catch {
                logger.warning("logind gave no delay inhibitor (\(error)); suspends will not wait for the state to be saved")
            }
        }

        func release() {
            held?.close()
            held = nil
        }
    }
}
