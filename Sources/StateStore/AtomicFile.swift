import Glibc

/// Files that are either wholly old or wholly new: written to a temporary file beside the
/// target, flushed to disk, then renamed over it, so a crash or `kill -9` mid-write can never
/// leave a half-written state file behind.
enum AtomicFile {
    /// Reads a whole file of at most `limit` bytes; nil when it does not exist. Throws
    /// `.notRegularFile` for a FIFO, a device or a socket at `path`, none of which is read.
    static func read(_ path: String, limit: Int) throws(StateError) -> [UInt8]? {
        let fd = try openRegular(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .io("cannot read \(path)", errno: errno)
            }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
            if bytes.count > limit { throw .tooLarge(path, limit: limit) }
        }
    }

    /// Opens `path` (with `flags`, and `O_CREAT` making it 0600) for reading or locking, only as
    /// a regular file: -1 when it does not exist (and `flags` does not create it).
    ///
    /// Never through a symbolic link: a state file is ours, not a pointer to someone's. And
    /// never waiting: `O_NONBLOCK`, so a FIFO planted there opens at once instead of waiting for
    /// a writer, and `O_NOCTTY`, so a terminal device never becomes the process's own; what was
    /// opened is then checked (fstat, on the descriptor itself, so nothing can be swapped in
    /// between) and anything but a regular file is closed unread. A directory is an I/O error,
    /// as reading one would be.
    static func openRegular(_ path: String, _ flags: Int32) throws(StateError) -> Int32 {
        let fd = open(path, flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, 0o600)
        if fd < 0 {
            if errno == ENOENT && flags & O_CREAT == 0 { return -1 }
            // What open(2) says of a socket.
            if errno == ENXIO { throw .notRegularFile(path, "a socket") }
            throw .io("cannot open \(path)", errno: errno)
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let failure = errno
            close(fd)
            throw .io("cannot inspect \(path)", errno: failure)
        }
        let kind: String? = switch info.st_mode & S_IFMT {
        case S_IFREG: nil
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        default: "a socket"
        }
        guard let kind else { return fd }
        close(fd)
        if kind == "a directory" { throw .io("cannot read \(path)", errno: EISDIR) }
        throw .notRegularFile(path, kind)
    }

    /// Replaces `path` with `bytes`, mode 0600.
    static func write(_ bytes: [UInt8], to path: String) throws(StateError) {
        let temporary = path + ".tmp-\(getpid())"
        // A file of its own, made here: O_EXCL fails on anything already at that name (a link
        // planted there included) rather than writing through it. A leftover of an earlier
        // process with this pid is ours to remove.
        var fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if fd < 0 && errno == EEXIST {
            unlink(temporary)
            fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        }
        guard fd >= 0 else { throw .io("cannot create \(temporary)", errno: errno) }
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                let failure = errno
                close(fd)
                unlink(temporary)
                throw .io("cannot write \(temporary)", errno: failure)
            }
            written += count
        }
        // Without fsync before rename, a power cut can leave the new name pointing at an empty file.
        if fsync(fd) != 0 {
            let failure = errno
            close(fd)
            unlink(temporary)
            throw .io("cannot flush \(temporary)", errno: failure)
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let failure = errno
            unlink(temporary)
            throw .io("cannot replace \(path)", errno: failure)
        }
        syncDirectory(containing: path)
    }

    /// Moves a file that could not be understood out of the way, keeping it for a bug report.
    /// Returns the new name.
    static func setAside(_ path: String, suffix: String) throws(StateError) -> String {
        let aside = "\(path).corrupt-\(suffix)"
        guard rename(path, aside) == 0 else { throw .io("cannot set \(path) aside", errno: errno) }
        return aside
    }

    /// Makes a rename durable: the directory entry lives in the directory's own data.
    private static func syncDirectory(containing path: String) {
        let directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let fd = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }
}
