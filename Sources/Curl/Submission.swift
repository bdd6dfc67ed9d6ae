import Synchronization

/// A request on its way to the loop thread, with the way back to the task that waits for it.
struct Submission: Sendable {
    let request: HTTPRequest
    let options: TransferOptions
    let cancellation: CancellationFlag
    let continuation: CheckedContinuation<Result<HTTPResponse, CurlError>, Never>

    func complete(_ result: Result<HTTPResponse, CurlError>) {
        continuation.resume(returning: result)
    }
}

/// Raised by the waiting task's cancellation handler, read by the loop thread.
final class CancellationFlag: Sendable {
    private let raised = Atomic<Bool>(false)

    func raise() { raised.store(true, ordering: .releasing) }

    var isRaised: Bool { raised.load(ordering: .acquiring) }
}
