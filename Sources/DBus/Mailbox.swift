import Glibc
import Synchronization

/// How work from any thread reaches the connection thread, and how that thread's end is
/// announced.
///
/// Jobs run on the connection thread in the order they were submitted. Submitting to an empty
/// queue writes one byte to a socket the thread polls, so an idle connection sleeps in
/// `poll` until there is something to do.
final class Mailbox: Sendable {
    typealias Job = @Sendable (ConnectionCore) -> Void

    private struct State {
        var jobs: [Job] = []
        var accepting = true
        var closeReason: DBusConnection.CloseReason?
        var closeWaiters: [UInt64: AsyncStream<DBusConnection.CloseReason>.Continuation] = [:]
    }

    private let state = Mutex(State())
    private let ids = Atomic<UInt64>(0)
    /// The connection thread polls this end.
    let wakeReceiver: Int32
    private let wakeSender: Int32
    /// How many times the connection thread has returned from `poll`: the idle test reads it.
    let wakeUps = Atomic<Int>(0)
    private let name = Mutex("")
    let reconnections: AsyncStream<String>
    private let reconnectionFeed: AsyncStream<String>.Continuation

    init() throws {
        var ends: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        guard socketpair(AF_UNIX, type, 0, &ends) == 0 else {
            throw DBusError.failed("cannot create the wake-up socket (errno \(errno))")
        }
        wakeReceiver = ends[0]
        wakeSender = ends[1]
        (reconnections, reconnectionFeed) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(16))
    }

    /// The connection's unique name now.
    var uniqueName: String { name.withLock { $0 } }

    /// The connection has the unique name `uniqueName`, after it was made again unless this
    /// is the first.
    /// The connection's unique name now, at the first connection and after each reconnection.
    func connected(as uniqueName: String) {
        name.withLock { $0 = uniqueName }
    }

    /// Tells `reconnections` that the connection is back as it was, as `uniqueName`.
    func announceReconnection(as uniqueName: String) {
        reconnectionFeed.yield(uniqueName)
    }

    deinit {
        close(wakeReceiver)
        close(wakeSender)
    }

    /// A number unique for this connection: names pending calls and subscriptions.
    func nextID() -> UInt64 {
        ids.add(1, ordering: .relaxed).newValue
    }

    /// Queues `job` for the connection thread; false once the connection has closed.
    @discardableResult
    func submit(_ job: @escaping Job) -> Bool {
        let (accepted, wasEmpty) = state.withLock { state in
            guard state.accepting else { return (false, false) }
            state.jobs.append(job)
            return (true, state.jobs.count == 1)
        }
        if wasEmpty {
            var byte: UInt8 = 1
            // A full socket already holds a wake-up, so a failed write loses nothing.
            _ = send(wakeSender, &byte, 1, Int32(MSG_NOSIGNAL))
        }
        return accepted
    }

    /// On the connection thread, after `poll` reported the wake-up socket readable.
    func drainWakeUps() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while recv(wakeReceiver, &buffer, buffer.count, 0) > 0 {}
    }

    func takeJobs() -> [Job] {
        state.withLock { state in
            defer { state.jobs = [] }
            return state.jobs
        }
    }

    /// Refuses further jobs and hands back those still queued, so they can fail properly.
    func stopAccepting() -> [Job] {
        state.withLock { state in
            state.accepting = false
            defer { state.jobs = [] }
            return state.jobs
        }
    }

    /// Called by the connection thread as its very last act.
    func finish(_ reason: DBusConnection.CloseReason) {
        let waiters = state.withLock { state in
            state.closeReason = reason
            defer { state.closeWaiters = [:] }
            return state.closeWaiters.values
        }
        for waiter in waiters {
            waiter.yield(reason)
            waiter.finish()
        }
        reconnectionFeed.finish()
    }

    /// Returns once the connection thread has finished; throws if the waiting task is cancelled.
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
