import SystemCalls

/// A `ca-file` that is not a regular file is refused before libcurl sees it: libcurl's TLS
/// library opens the file itself, blocking, on the loop, so a FIFO there would stall the
/// process for ever (`curl --cacert FIFO` still waited after 8 s), and a device would feed it
/// whatever it gives. A missing or unreadable file is left to libcurl, whose error names it
/// (and whose store, once built from the file, serves the session's later connections).
///
/// The config is checked this way when it is read, and each transfer checks again, as the file
/// can be replaced at any time after; the check opens without waiting (`openRegularFile`).
public enum CAFileCheck {
    /// Nil when `path` may go to libcurl; else why not: "/p/ca.pem is a FIFO, not a regular file".
    public static func problem(with path: String) -> String? {
        do {
            let descriptor = try FileDescriptor.openRegularFile(path)
            try? descriptor.close()
        } catch .notRegular(let kind) {
            return "\(path) is \(kind), not a regular file"
        } catch {}
        return nil
    }
}
