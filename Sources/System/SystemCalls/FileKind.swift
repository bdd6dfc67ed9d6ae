import Glibc

/// What is at a path, as fstat(2) tells it of an open descriptor.
public enum FileKind: Sendable, Equatable, CustomStringConvertible {
    case regular, directory, fifo, characterDevice, blockDevice, socket

    init(mode: mode_t) {
        self = switch mode & S_IFMT {
        case S_IFREG: .regular
        case S_IFDIR: .directory
        case S_IFIFO: .fifo
        case S_IFCHR: .characterDevice
        case S_IFBLK: .blockDevice
        // S_IFSOCK: an open descriptor is never on a symbolic link itself.
        default: .socket
        }
    }

    /// As a sentence says it: "is a FIFO".
    public var description: String {
        switch self {
        case .regular: "a regular file"
        case .directory: "a directory"
        case .fifo: "a FIFO"
        case .characterDevice: "a character device"
        case .blockDevice: "a block device"
        case .socket: "a socket"
        }
    }
}
