import SystemCalls

/// gbnotifyd's standard error before its log exists: usage errors and `--help`'s mistakes.
enum StandardError {
    static func write(_ message: String) {
        // Not stdio's `stderr`, a global that strict concurrency rejects. Nowhere to report a
        // failure to write to standard error.
        try? FileDescriptor.standardError.writeAll((message + "\n").utf8)
    }
}
