import Glibc
import SystemCalls

public enum StateError: Error, Equatable, CustomStringConvertible {
    case io(String, errno: Int32)
    case tooLarge(String, limit: Int)
    case noStateDirectory
    /// The state directory is not safe to use, and why, with what to do.
    case unsafeDirectory(String, String)
    /// Something other than a regular file (a FIFO, a device) where a state file belongs, and
    /// what it is: never read.
    case notRegularFile(String, String)
    /// Another process held the state lock for longer than the wait allows.
    case locked(String, waited: Duration)

    public var description: String {
        switch self {
        case .io(let what, let code):
            return "\(what): \(String(cString: strerror(code)))"
        case .tooLarge(let path, let limit):
            return "\(path) is larger than \(limit) bytes"
        case .noStateDirectory:
            return "neither XDG_STATE_HOME nor HOME is set, so there is nowhere to keep state"
        case .unsafeDirectory(let path, let reason):
            return "the state directory \(path) is not safe to use: \(reason)"
        case .notRegularFile(let path, let kind):
            return "\(path) is \(kind), not a regular file; remove it"
        case .locked(let path, let waited):
            return "another process has held \(path) for over \(waited), so the state was left as it is"
        }
    }
}

extension StateError {
    /// A state file that could not be opened or read, in the state store's words.
    init(_ error: RegularFileError, path: String) {
        self = switch error {
        case .cannotOpen(let cause): .io("cannot open \(path)", errno: cause.rawValue)
        case .cannotRead(let cause): .io("cannot read \(path)", errno: cause.rawValue)
        case .notRegular(let kind): .notRegularFile(path, "\(kind)")
        }
    }
}
