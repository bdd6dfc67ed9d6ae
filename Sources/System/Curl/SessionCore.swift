import CCurl
import MainLoop

/// What a session shares with its transfers on the main loop: a way to hand them work.
///
/// The `TransferLoop` (the libcurl multi handle and the transfers on it) lives on the loop's
/// thread; tasks reach it only through jobs submitted here, so nothing needs a lock.
final class SessionCore: Sendable {
    /// The transfer loop, used on the loop's thread alone.
    private struct Reference: @unchecked Sendable {
        let loop: TransferLoop
    }

    private let reference: Reference

    /// A multi handle whose connection cache keeps up to `maxIdleConnections` connections; nil
    /// if libcurl could not provide one.
    static func start(maxIdleConnections: Int) -> SessionCore? {
        guard libcurlGlobalInit == CURLE_OK, let loop = TransferLoop(maxIdleConnections: maxIdleConnections) else { return nil }
        return SessionCore(Reference(loop: loop))
    }

    private init(_ reference: Reference) {
        self.reference = reference
    }

    func submit(_ submission: Submission) {
        let reference = reference
        MainLoop.shared.submit { reference.loop.start(submission) }
    }

    /// The loop looks at cancellations and at streams whose reader made room.
    func wake() {
        let reference = reference
        MainLoop.shared.submit { reference.loop.serviceRequests() }
    }

    /// Ends every transfer and frees the multi handle.
    func close() {
        let reference = reference
        MainLoop.shared.submit { reference.loop.shutDown() }
    }
}
