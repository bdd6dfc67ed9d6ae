import MainLoop
import Synchronization

/// How work from any task reaches a connection's core on the main loop, and how the
/// connection's end is announced.
///
/// Jobs run on the loop's thread in the order they were submitted, each with the core. Once the
/// connection has finished closing the core is let go and jobs are refused; a job queued before
/// that still runs, with a core that fails whatever it is asked (`ConnectionCore.closeReason`).
final class Mailbox: Sendable {
    typealias Job = @Sendable (ConnectionCore) -> Void

    private struct State {
        var core: CoreReference?
        var closeReason: DBusConnection.CloseReason?
        var closeWaiters: [UInt64: AsyncStream<DBusConnection.CloseReason>.Continuation] = [:]
        var uniqueName = ""
        var reconnectionObservers: [@Sendable (String) -> Void] = []
    }

    /// The core, handed to jobs: they use it on the loop's thread alone.
    private struct CoreReference: @unchecked Sendable {
        let core: ConnectionCore
    }

    /// Shared by the loop's thread (attach, finish, the name after a reconnection) and the
    /// threads of the tasks that submit jobs or wait for the end, which need not be the loop's.
    private let state = Mutex(State())
    /// Numbers calls and subscriptions for any submitting thread.
    private let ids = Atomic<UInt64>(0)
    /// How many times the loop has served this connection (a socket ready, a timeout, a
    /// dispatch), counted on the loop's thread; the idle test reads it from its own.
    let wakeUps = Atomic<Int>(0)
    /// Told of each call refused for its size, on the loop's thread.
    let announceOversized: @Sendable (DBusOversizedMessage) -> Void

    init(tellingOversizedCalls announceOversized: @escaping @Sendable (DBusOversizedMessage) -> Void) {
        self.announceOversized = announceOversized
    }

    /// On the loop's thread, once the core exists.
    func attach(_ core: ConnectionCore) {
        state.withLock { $0.core = CoreReference(core: core) }
    }

    /// The connection's unique name now.
    var uniqueName: String { state.withLock { $0.uniqueName } }

    /// The connection's unique name, at the first connection and after each reconnection.
    func connected(as uniqueName: String) {
        state.withLock { $0.uniqueName = uniqueName }
    }

    /// Adds `observer` to those told of each reconnection (`announceReconnection`).
    func observeReconnections(_ observer: @escaping @Sendable (String) -> Void) {
        state.withLock { $0.reconnectionObservers.append(observer) }
    }

    /// Tells every observer, each in turn, that the connection is back as it was, as `uniqueName`.
    func announceReconnection(as uniqueName: String) {
        for observer in state.withLock({ $0.reconnectionObservers }) {
            observer(uniqueName)
        }
    }

    /// A number unique for this connection: names pending calls and subscriptions.
    func nextID() -> UInt64 {
        ids.add(1, ordering: .relaxed).newValue
    }

    /// Queues `job` for the loop's thread; false once the connection has closed.
    @discardableResult
    func submit(_ job: @escaping Job) -> Bool {
        guard let reference = state.withLock({ $0.core }) else { return false }
        MainLoop.shared.submit { job(reference.core) }
        return true
    }

    /// Called on the loop's thread as the connection's very last act.
    func finish(_ reason: DBusConnection.CloseReason) {
        let waiters = state.withLock { state in
            state.core = nil
            state.closeReason = reason
            state.reconnectionObservers = []
            defer { state.closeWaiters = [:] }
            return state.closeWaiters.values
        }
        for waiter in waiters {
            waiter.yield(reason)
            waiter.finish()
        }
    }

    /// Returns once the connection has finished; throws if the waiting task is cancelled.
    func waitUntilFinished() async throws -> DBusConnection.CloseReason {
        let id = nextID()
        let (stream, continuation) = AsyncStream<DBusConnection.CloseReason>.makeStream()
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.closeWaiters.removeValue(forKey: id) }
        }
        let alreadyFinished = state.withLock { state in
            if state.closeReason == nil {
                state.closeWaiters[id] = continuation
            }
            return state.closeReason
        }
        if let alreadyFinished {
            return alreadyFinished
        }
        for await reason in stream {
            return reason
        }
        throw CancellationError()
    }
}
