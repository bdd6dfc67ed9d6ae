import SystemCalls

/// Standard error, for diagnostics that must not mix with a command's output.
enum Console {
    static func error(_ message: String) {
        // Not stdio's `stderr`, a global that strict concurrency rejects. Nowhere to report a
        // failure to write to standard error.
        try? FileDescriptor.standardError.writeAll((message + "\n").utf8)
    }
}
