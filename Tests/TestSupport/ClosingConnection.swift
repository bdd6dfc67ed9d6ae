import DBus

extension DBusConnection {
    /// `body` with this connection, which is closed after it whether it returned or threw.
    public func closing<Result: Sendable>(after body: (DBusConnection) async throws -> Result) async throws -> Result {
        do {
            let result = try await body(self)
            await close()
            return result
        } catch {
            await close()
            throw error
        }
    }
}
