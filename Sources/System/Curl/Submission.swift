import Synchronization

/// A request on its way to the main loop, with the way back to the task that waits for it.
struct Submission: Sendable {
    /// Where what arrives goes.
    enum Receiver: Sendable {
        /// `perform`: the whole response at once, to one waiting task.
        case response(CheckedContinuation<Result<HTTPResponse, CurlError>, Never>)
        /// `stream`: the head, then the body chunk by chunk, through a bounded channel.
        case stream(StreamChannel)
    }

    let request: HTTPRequest
    let options: TransferOptions
    let cancellation: CancellationFlag
    let receiver: Receiver

    /// Hands over how the transfer ended. A stream's body already went through its channel, so
    /// a stream only learns whether it ended cleanly.
    func complete(_ result: Result<HTTPResponse, CurlError>) {
        switch receiver {
        case .response(let continuation):
            continuation.resume(returning: result)
        case .stream(let channel):
            channel.finish(result.map { _ in () })
        }
    }
}

/// Raised by the waiting task's cancellation handler, on whichever thread cancels the task,
/// read by the loop's thread.
final class CancellationFlag: Sendable {
    private let raised = Atomic<Bool>(false)

    func raise() { raised.store(true, ordering: .releasing) }

    var isRaised: Bool { raised.load(ordering: .acquiring) }
}
