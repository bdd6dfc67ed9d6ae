import Glibc

/// Why a file that should be a regular file could not be used.
public enum RegularFileError: Error, Equatable, CustomStringConvertible {
    case cannotOpen(Errno)
    /// read(2) failed; a directory is `.cannotRead(.isDirectory)`, as reading one would be.
    case cannotRead(Errno)
    /// A FIFO, a device or a socket, never read.
    case notRegular(FileKind)

    /// "cannot open it: Permission denied", "it is a FIFO, not a regular file".
    public var description: String {
        switch self {
        case .cannotOpen(let error): "cannot open it: \(error)"
        case .cannotRead(let error): "cannot read it: \(error)"
        case .notRegular(let kind): "it is \(kind), not a regular file"
        }
    }
}

extension FileDescriptor {
    /// Opens `path` only as a regular file, never waiting.
    ///
    /// `O_NONBLOCK`, so that a FIFO put in a file's place opens at once instead of waiting for
    /// a writer, and `O_NOCTTY`, so that a terminal never becomes the process's own; what was
    /// opened is then checked with fstat on the descriptor itself (nothing can be swapped in
    /// between), and anything but a regular file is closed unread. (`O_NONBLOCK` changes
    /// nothing for a regular file's reads and writes.)
    public static func openRegularFile(
        _ path: String, _ access: AccessMode = .readOnly, options: OpenOptions = []
    ) throws(RegularFileError) -> FileDescriptor {
        let descriptor: FileDescriptor
        do {
            descriptor = try open(path, access, options: options.union([.nonBlocking, .noControllingTerminal]))
        } catch {
            // What open(2) says of a socket.
            if error.rawValue == ENXIO { throw .notRegular(.socket) }
            throw .cannotOpen(error)
        }
        let kind: FileKind
        do {
            kind = try descriptor.kind()
        } catch {
            try? descriptor.close()
            throw .cannotOpen(error)
        }
        guard kind != .regular else { return descriptor }
        try? descriptor.close()
        throw kind == .directory ? .cannotRead(.isDirectory) : .notRegular(kind)
    }

    /// The bytes of the regular file at `path`, at most `limit` of them (`read(upTo:)`); nil
    /// when there is no file.
    public static func readRegularFile(_ path: String, upTo limit: Int, options: OpenOptions = []) throws(RegularFileError) -> [UInt8]? {
        let descriptor: FileDescriptor
        do {
            descriptor = try openRegularFile(path, options: options)
        } catch .cannotOpen(.noSuchFileOrDirectory) {
            return nil
        }
        defer { try? descriptor.close() }
        do {
            return try descriptor.read(upTo: limit)
        } catch {
            throw .cannotRead(error)
        }
    }
}
