import DBus
import Logging
import MainLoop
import StateStore

/// What the system bus tells of sleep (systemd-logind) and the network (NetworkManager), handed
/// to the supervisor by a call. Neither has to be there (containers, other inits, no
/// NetworkManager): a missing one is simply never heard from, and polling goes on as without
/// it. The watches live as long as this does.
public final class SystemWatch: Sendable {
    private let tasks: [Task<Void, Never>]

    private init(tasks: [Task<Void, Never>]) {
        self.tasks = tasks
    }

    deinit {
        tasks.forEach { $0.cancel() }
    }

    /// Follows logind and NetworkManager on `bus` (the system bus, or a stand-in for it). Before
    /// a suspend, `state` is written out.
    @LoopActor
    public static func start(
        telling supervisor: Supervisor, state: StateFiles, on bus: DBusConnection,
        logger: Logger
    ) async throws -> SystemWatch {
        let sleep = try await SleepWatch.start(
            on: bus, logger: logger, beforeSleep: { await state.flush() }, afterResume: { supervisor.resumed() })
        let network = try await NetworkWatch.start(on: bus, logger: logger) { supervisor.networkChanged($0) }
        return SystemWatch(tasks: sleep + network)
    }
}
