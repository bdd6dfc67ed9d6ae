import Glibc
import SystemCalls

/// The terminal on standard input and output, switched to what a full-screen view needs and
/// back: raw mode (no echo, no line editing, ^C and ^Z as bytes rather than signals), the
/// alternate screen, the cursor hidden and line wrap off.
///
/// `restore()` puts back exactly the termios settings found at `init`, and leaves the alternate
/// screen with the cursor shown and wrap on; it is safe to call more than once, and on a
/// terminal that is gone (its errors are ignored: there is nothing left to restore).
public final class RawTerminal: @unchecked Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The settings found at start, put back by `restore()`.
    private let saved: termios
    private var isRaw = false

    /// The alternate screen on, cursor hidden, line wrap off, attributes reset.
    private static let enterSequence = "\u{1B}[?1049h\u{1B}[?25l\u{1B}[?7l\u{1B}[0m\u{1B}[2J"
    /// Attributes reset, line wrap and cursor back, the alternate screen left.
    private static let leaveSequence = "\u{1B}[0m\u{1B}[?7h\u{1B}[?25h\u{1B}[?1049l"

    /// Whether standard input and output are both a terminal that takes escape sequences
    /// (`TERM` set and not `dumb`).
    public static func isInteractive(environment: [String: String]) -> Bool {
        guard isatty(0) == 1, isatty(1) == 1 else { return false }
        let term = environment["TERM"] ?? ""
        return !term.isEmpty && term != "dumb"
    }

    public init() throws(Failure) {
        var settings = termios()
        guard tcgetattr(0, &settings) == 0 else { throw Self.failure("cannot read the terminal's settings") }
        saved = settings
    }

    /// Raw mode and the full-screen settings; again after a suspension, where the shell may
    /// have changed them.
    public func enter() throws(Failure) {
        var raw = saved
        cfmakeraw(&raw)
        // One byte is enough for read(2) to return; nothing waits on a timer.
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(0, TCSAFLUSH, &raw) == 0 else { throw Self.failure("cannot switch the terminal to raw mode") }
        isRaw = true
        guard write(Array(Self.enterSequence.utf8)) else { throw Self.failure("cannot write to the terminal") }
    }

    /// Back to how the terminal was found. Errors are ignored: a terminal that cannot be
    /// written to any more has nothing left to restore.
    public func restore() {
        guard isRaw else { return }
        isRaw = false
        _ = write(Array(Self.leaveSequence.utf8))
        var settings = saved
        _ = tcsetattr(0, TCSAFLUSH, &settings)
    }

    /// Whether a shell with job control can continue this process after it stops: that shell
    /// gives each job a process group of its own, apart from the session's. A program a terminal
    /// runs directly (`x-terminal-emulator -e ...`, as a click does) leads its session, and
    /// stopped there it would never be continued.
    public static var canSuspend: Bool { getpgrp() != getsid(0) }

    /// The size in cells; nil when the terminal does not say (or says 0).
    public func size() -> (rows: Int, columns: Int)? {
        var size = winsize()
        guard ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0, size.ws_col > 0 else { return nil }
        return (Int(size.ws_row), Int(size.ws_col))
    }

    /// Writes all of `bytes` to standard output; false when the terminal is gone.
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        (try? FileDescriptor.standardOutput.writeAll(bytes)) != nil
    }

    private static func failure(_ what: String) -> Failure {
        Failure(description: "\(what): \(String(cString: strerror(errno)))")
    }
}
