import PushCore
import SystemCalls

/// Everything gbnotifyctl prints, on standard output or standard error, goes through here, and
/// so through one sanitiser: text loses every C0 and C1 control but its newlines and tabs, and
/// every bidi and format character (`terminalSafe`); JSON has them escaped inside its strings
/// (`JSONText.printable`). What is printed comes from servers, the daemon, the keyring, state
/// files and the command line; none of it may drive the terminal it lands on. (The terminal
/// view draws through its own cleaned layout, `ScreenText`.)
enum Console {
    /// Text on standard output.
    static func out(_ text: String, terminator: String = "\n") {
        write(text.terminalSafe + terminator, to: .standardOutput)
    }

    /// JSON on standard output, one document, then a newline.
    static func json(_ json: String) {
        var text = JSONText.printable(json)
        if !text.hasSuffix("\n") { text += "\n" }
        write(text, to: .standardOutput)
    }

    /// Standard error, for diagnostics that must not mix with a command's output.
    static func error(_ message: String) {
        write(message.terminalSafe + "\n", to: .standardError)
    }

    /// write(2) rather than stdio (whose `stdout` and `stderr` are globals that strict
    /// concurrency rejects), whole, so that lines from the two streams never mix mid-line.
    private static func write(_ text: String, to descriptor: FileDescriptor) {
        // A stream that is gone (a closed pipe) has no reader left to tell.
        try? descriptor.writeAll(text.utf8)
    }
}
