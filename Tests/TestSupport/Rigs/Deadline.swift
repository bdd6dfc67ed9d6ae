/// Why a wait of the tests or the rigs gave up.
public struct TimedOut: Error, CustomStringConvertible {
    public let description: String

    public init(description: String) {
        self.description = description
    }
}

/// `body`'s result, or `TimedOut` naming `what` once `timeout` has passed; `body` is cancelled
/// then. For waits on events (signals, name owners) that have no deadline of their own.
public func withDeadline<Result: Sendable>(
    _ timeout: Duration, _ what: String, _ body: @escaping @Sendable () async throws -> Result
) async throws -> Result {
    try await withThrowingTaskGroup(of: Result?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let result = first else {
            throw TimedOut(description: "waited \(timeout) for \(what)")
        }
        return result
    }
}
