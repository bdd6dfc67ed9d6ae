internal import CGLib
import Glibc

/// How a child process ended.
public enum ChildExit: Sendable, Equatable, CustomStringConvertible {
    case exited(Int32)
    case killed(signal: Int32)

    public var description: String {
        switch self {
        case .exited(let code): "exited with status \(code)"
        case .killed(let signal): "was killed by signal \(signal)"
        }
    }
}

/// Children reaped by the main loop (GLib's child watch), with no thread waiting in waitpid.
public enum ChildWatch {
    /// Returns once the child `pid` (one this process started) has ended, and reaps it.
    public static func exit(of pid: Glibc.pid_t) async -> ChildExit {
        await withCheckedContinuation { (continuation: CheckedContinuation<ChildExit, Never>) in
            let waiter = Unmanaged.passRetained(Waiter(continuation)).toOpaque()
            let source = g_child_watch_source_new(pid)
            g_source_set_callback(source, unsafeBitCast(childExited, to: GSourceFunc.self), waiter, nil)
            g_source_attach(source, nil)
            g_source_unref(source)
        }
    }

    fileprivate final class Waiter {
        let continuation: CheckedContinuation<ChildExit, Never>
        init(_ continuation: CheckedContinuation<ChildExit, Never>) { self.continuation = continuation }
    }
}

/// `GChildWatchFunc`: called once, on the loop's thread, with waitpid's status.
private let childExited: @convention(c) (GPid, gint, gpointer?) -> Void = { _, status, data in
    let waiter = Unmanaged<ChildWatch.Waiter>.fromOpaque(data!).takeRetainedValue()
    let exited = status & 0x7F == 0
    waiter.continuation.resume(returning: exited ? .exited((status >> 8) & 0xFF) : .killed(signal: status & 0x7F))
}
