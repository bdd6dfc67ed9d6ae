import Glibc

/// An open file descriptor, with the system calls gbnotify makes on one. Every call that can be
/// interrupted by a signal goes through `valueOrErrno`, and so is made again; every failure is
/// an `Errno`. The descriptor is closed by `close()`, never by being dropped.
public struct FileDescriptor: Hashable, Sendable {
    public let rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    public static let standardInput = FileDescriptor(rawValue: 0)
    public static let standardOutput = FileDescriptor(rawValue: 1)
    public static let standardError = FileDescriptor(rawValue: 2)

    public enum AccessMode: Sendable {
        case readOnly, writeOnly, readWrite

        var flags: Int32 {
            switch self {
            case .readOnly: O_RDONLY
            case .writeOnly: O_WRONLY
            case .readWrite: O_RDWR
            }
        }
    }

    /// open(2)'s options gbnotify uses. `O_CLOEXEC` is not one: every descriptor has it, so
    /// that nothing a click starts inherits one.
    public struct OpenOptions: OptionSet, Sendable {
        public let rawValue: Int32

        public init(rawValue: Int32) {
            self.rawValue = rawValue
        }

        public static let create = OpenOptions(rawValue: O_CREAT)
        public static let exclusiveCreate = OpenOptions(rawValue: O_EXCL)
        public static let noFollow = OpenOptions(rawValue: O_NOFOLLOW)
        public static let nonBlocking = OpenOptions(rawValue: O_NONBLOCK)
        public static let noControllingTerminal = OpenOptions(rawValue: O_NOCTTY)
        public static let directory = OpenOptions(rawValue: O_DIRECTORY)
    }

    public static func open(
        _ path: String, _ access: AccessMode, options: OpenOptions = [], permissions: mode_t = 0o600
    ) throws(Errno) -> FileDescriptor {
        let flags = access.flags | options.rawValue | O_CLOEXEC
        return FileDescriptor(rawValue: try valueOrErrno { Glibc.open(path, flags, permissions) }.get())
    }

    /// Not retried on EINTR: Linux has closed the descriptor by then, and a second close could
    /// close one another thread has just opened.
    public func close() throws(Errno) {
        guard Glibc.close(rawValue) == 0 else { throw Errno.current }
    }

    /// One read(2): what is there, up to the buffer's size; 0 at the end of the file.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        try valueOrErrno { Glibc.read(rawValue, buffer.baseAddress, buffer.count) }.get()
    }

    /// One write(2): how much of the buffer was written. Callers write with `writeAll`.
    func write(_ buffer: UnsafeRawBufferPointer) throws(Errno) -> Int {
        try valueOrErrno { Glibc.write(rawValue, buffer.baseAddress, buffer.count) }.get()
    }

    /// Reads until the end of the file, or until `limit` bytes are read, or (given a
    /// `terminator`) until that byte, which is kept: the one bounded read. Ask for one byte
    /// more than is allowed to tell a file at the limit from one over it, without reading
    /// the rest. With a terminator, bytes are read one at a time, so that nothing after it is
    /// taken from the descriptor.
    public func read(upTo limit: Int, stoppingAfter terminator: UInt8? = nil) throws(Errno) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: terminator == nil ? min(limit, 64 * 1024) : 1)
        while bytes.count < limit {
            let wanted = min(chunk.count, limit - bytes.count)
            let count = try chunk.withUnsafeMutableBytes { buffer in
                Result { () throws(Errno) in try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<wanted])) }
            }.get()
            guard count > 0 else { break }
            bytes += chunk[..<count]
            if let terminator, chunk[0] == terminator { break }
        }
        return bytes
    }

    /// Writes every byte, however many write(2) calls that takes; on a descriptor that is
    /// non-blocking (a terminal another process made so), waits with poll(2) for room rather
    /// than spinning.
    public func writeAll<Bytes: Collection<UInt8>>(_ bytes: Bytes) throws(Errno) {
        let written: Result<Void, Errno>? = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(Errno) in try writeAll(UnsafeRawBufferPointer(buffer)) }
        }
        guard let written else { return try writeAll(Array(bytes)) }
        try written.get()
    }

    private func writeAll(_ buffer: UnsafeRawBufferPointer) throws(Errno) {
        var offset = 0
        while offset < buffer.count {
            do throws(Errno) {
                let written = try write(UnsafeRawBufferPointer(rebasing: buffer[offset...]))
                // Nothing taken of a non-empty buffer, and no error: asked again, such a
                // descriptor would be asked for ever.
                guard written > 0 else { throw Errno(rawValue: EIO) }
                offset += written
            } catch .wouldBlock {
                var room = pollfd(fd: rawValue, events: Int16(POLLOUT), revents: 0)
                _ = try valueOrErrno { poll(&room, 1, -1) }.get()
            }
        }
    }

    /// What the descriptor is open on.
    func kind() throws(Errno) -> FileKind {
        var status = stat()
        _ = try valueOrErrno { fstat(rawValue, &status) }.get()
        return FileKind(mode: status.st_mode)
    }
}
