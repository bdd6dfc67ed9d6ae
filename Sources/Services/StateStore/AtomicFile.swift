import Glibc
import SystemCalls

/// Files that are either wholly old or wholly new: written to a temporary file beside the
/// target, flushed to disk, then renamed over it, so a crash or `kill -9` mid-write can never
/// leave a half-written state file behind.
enum AtomicFile {
    /// Reads a whole file of at most `limit` bytes; nil when it does not exist. Throws
    /// `.notRegularFile` for a FIFO, a device or a socket at `path`, none of which is read
    /// (nor waited on: `FileDescriptor.openRegularFile`). Never through a symbolic link: a
    /// state file is ours, not a pointer to someone's.
    static func read(_ path: String, limit: Int) throws(StateError) -> [UInt8]? {
        let bytes: [UInt8]?
        do {
            // One byte more than allowed tells an oversized file without reading the rest.
            bytes = try FileDescriptor.readRegularFile(path, upTo: limit + 1, options: .noFollow)
        } catch {
            throw StateError(error, path: path)
        }
        if let bytes, bytes.count > limit { throw .tooLarge(path, limit: limit) }
        return bytes
    }

    /// Opens `path` for reading and writing, creating it (mode 0600), only as a regular file
    /// and never through a link: the state directory's lock.
    static func openOrCreate(_ path: String) throws(StateError) -> FileDescriptor {
        do {
            return try FileDescriptor.openRegularFile(path, .readWrite, options: [.create, .noFollow])
        } catch {
            throw StateError(error, path: path)
        }
    }

    /// Replaces `path` with `bytes`, mode 0600.
    static func write(_ bytes: [UInt8], to path: String) throws(StateError) {
        let temporary = path + ".tmp-\(getpid())"
        // A file of its own, made here: O_EXCL fails on anything already at that name (a link
        // planted there included) rather than writing through it. A leftover of an earlier
        // process with this pid is ours to remove.
        let create = { () throws(Errno) in
            try FileDescriptor.open(temporary, .writeOnly, options: [.create, .exclusiveCreate, .noFollow], permissions: 0o600)
        }
        let fd: FileDescriptor
        do {
            do {
                fd = try create()
            } catch .fileExists {
                unlink(temporary)
                fd = try create()
            }
        } catch {
            throw .io("cannot create \(temporary)", errno: error.rawValue)
        }
        do {
            try fd.writeAll(bytes)
        } catch {
            try? fd.close()
            unlink(temporary)
            throw .io("cannot write \(temporary)", errno: error.rawValue)
        }
        // Without fsync before rename, a power cut can leave the new name pointing at an empty file.
        if case .failure(let error) = valueOrErrno({ fsync(fd.rawValue) }) {
            try? fd.close()
            unlink(temporary)
            throw .io("cannot flush \(temporary)", errno: error.rawValue)
        }
        try? fd.close()
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
        guard let fd = try? FileDescriptor.open(directory.isEmpty ? "." : directory, .readOnly, options: .directory) else { return }
        _ = valueOrErrno { fsync(fd.rawValue) }
        try? fd.close()
    }
}
