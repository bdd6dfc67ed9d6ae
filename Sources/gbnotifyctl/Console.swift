import Glibc
import PushCore

/// Everything gbnotifyctl prints, on standard output or standard error, goes through here, and
/// so through one sanitiser: text loses every C0 and C1 control but its newlines and tabs, and
/// every bidi and format character (`terminalSafe`); JSON has them escaped inside its strings
/// (`JSONText.printable`). What is printed comes from servers, the daemon, the keyring, state
/// files and the command line; none of it may drive the terminal it lands on. (The terminal
/// view draws through its own cleaned layout, `ScreenText`.)
enum Console {
    /// Text on standard output.
    static func out(_ text: String, terminator: String = "\n") {
        write(text.terminalSafe + terminator, to: 1)
    }

    /// JSON on standard output, one document, then a newline.
    static func json(_ json: String) {
        var text = JSONText.printable(json)
        if !text.hasSuffix("\n") { text += "\n" }
        write(text, to: 1)
    }

    /// Standard error, for diagnostics that must not mix with a command's output.
    static func error(_ message: String) {
        write(message.terminalSafe + "\n", to: 2)
    }

    /// write(2) rather than stdio (whose `stdout` and `stderr` are globals that strict
    /// concurrency rejects), whole, so that lines from the two streams never mix mid-line.
    private static func write(_ text: String, to descriptor: Int32) {
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            written += count
        }
    }
}
