import Glibc

/// Standard error, for diagnostics that must not mix with a command's output.
enum Console {
    static func error(_ message: String) {
        let line = Array((message + "\n").utf8)
        // write(2) on fd 2 rather than stdio's `stderr`, a global that strict concurrency rejects.
        _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }
}
