import Glibc

public enum StateError: Error, Equatable, CustomStringConvertible {
    case io(String, errno: Int32)
    case tooLarge(String, limit: Int)
    case noStateDirectory
    /// The state directory is not safe to use, and why, with what to do.
    case unsafeDirectory(String, String)

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
        }
    }
}
