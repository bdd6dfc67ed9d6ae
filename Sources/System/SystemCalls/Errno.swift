import Glibc

/// An error number a system call set, as a typed error: what `errno` says, read once, right
/// after the call that failed, before anything else can overwrite it.
public struct Errno: Error, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// The calling thread's `errno` now.
    public static var current: Errno { Errno(rawValue: errno) }

    public static let noSuchFileOrDirectory = Errno(rawValue: ENOENT)
    public static let isDirectory = Errno(rawValue: EISDIR)
    public static let wouldBlock = Errno(rawValue: EWOULDBLOCK)
    public static let fileExists = Errno(rawValue: EEXIST)

    /// strerror's words: "No such file or directory".
    public var description: String { String(cString: strerror(rawValue)) }
}

/// Runs a system call that says failure with -1 and `errno`, again for as long as a signal
/// interrupts it (EINTR): the one place in gbnotify that does so. A call whose result is its
/// error number rather than -1 has no place here.
public func valueOrErrno<Value: FixedWidthInteger>(_ call: () -> Value) -> Result<Value, Errno> {
    while true {
        let value = call()
        guard value == -1 else { return .success(value) }
        let error = Errno.current
        guard error.rawValue == EINTR else { return .failure(error) }
    }
}
