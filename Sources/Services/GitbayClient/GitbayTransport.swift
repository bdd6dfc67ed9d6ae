import Curl
import PushCore

/// What the daemon's polling and registration need of the gitbay API: a command sent for one
/// account, answered as an `APIResult`. `GitbayClient` is the real one, over libcurl; the tests
/// give the supervisor a fake that answers in process on their manual clock, kept honest by the
/// suites that run the same scenarios against the stand-in.
public protocol GitbayTransport: Sendable {
    var instance: GitbayInstance { get }

    func send(_ command: GitbayCommand, stdin: String?, ifNoneMatch: String?) async throws(TransportError) -> APIResult
}

extension GitbayTransport {
    public func send(_ command: GitbayCommand) async throws(TransportError) -> APIResult {
        try await send(command, stdin: nil, ifNoneMatch: nil)
    }

    public func send(_ command: GitbayCommand, ifNoneMatch: String?) async throws(TransportError) -> APIResult {
        try await send(command, stdin: nil, ifNoneMatch: ifNoneMatch)
    }

    public func send(_ command: GitbayCommand, stdin: String?) async throws(TransportError) -> APIResult {
        try await send(command, stdin: stdin, ifNoneMatch: nil)
    }
}

/// Makes an account's transport from its token: what the supervisor is given.
public typealias TransportMaker = @Sendable (GitbayInstance, APIToken, GitbayClient.Options) -> any GitbayTransport

extension GitbayClient: GitbayTransport {
    /// The real transport: `GitbayClient` over a session per instance, the process's.
    public static let maker = maker(sessions: InstanceSessions())

    /// `GitbayClient` over `sessions`' session of each instance (a daemon's own, where one
    /// process runs several: the tests').
    public static func maker(sessions: InstanceSessions) -> TransportMaker {
        { instance, token, options in
            GitbayClient(instance: instance, token: token, options: options, session: sessions.session(for: instance))
        }
    }
}
