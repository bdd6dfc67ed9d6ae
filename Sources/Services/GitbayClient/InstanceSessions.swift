import Curl
import PushCore
import Synchronization

/// One `HTTPSession` per instance for a process's clients: every account of an instance shares
/// its session, and so its one HTTP/2 connection; when the last client of an instance goes (its
/// last account removed), its session goes with it and closes that instance's connections.
/// libcurl cannot close one host's connections out of a cache shared with other hosts, where an
/// idle connection would otherwise stay until something else pruned it.
public final class InstanceSessions: Sendable {
    /// Held weakly: the clients hold their session, this only finds it.
    private struct Held: Sendable {
        weak var session: HTTPSession?
    }

    private let held = Mutex<[String: Held]>([:])

    public init() {}

    /// The session of `instance`'s clients, made if none is alive.
    func session(for instance: GitbayInstance) -> HTTPSession {
        held.withLock { held in
            if let session = held[instance.url]?.session { return session }
            let session = HTTPSession()
            held = held.filter { $0.value.session != nil }
            held[instance.url] = Held(session: session)
            return session
        }
    }
}
