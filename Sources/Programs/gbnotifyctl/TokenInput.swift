import Glibc
import PushCore
import SystemCalls

/// Reads an API token the way `account add` promises: from standard input when it is a pipe or a
/// file, otherwise from a prompt on the terminal with echo off. Never from argv, where every
/// local user could read it in /proc.
enum TokenInput {
    enum Failure: Error, CustomStringConvertible {
        case empty
        case unreadable(String)
        case invalid(TokenError)

        var description: String {
            switch self {
            case .empty: Localized.text("no token given; pipe it on standard input or type it at the prompt", note: "An error of gbnotifyctl when it reads a token.")
            case .unreadable(let why):
                Localized.text("cannot read the token: {reason}", note: "An error of gbnotifyctl. {reason}: why, in English.", ["reason": why])
            case .invalid(let error): "\(error)"
            }
        }
    }

    /// Whether standard input is a terminal: `account add` then offers to mint the token over
    /// SSH before it asks for one.
    static var isInteractive: Bool { isatty(0) == 1 }

    /// Asks a question on the terminal, with echo; the answer without surrounding blanks.
    static func ask(_ question: String) throws(Failure) -> String {
        let answer = try readFromTerminal(prompt: question, echo: true)
        return String(answer.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed())
    }

    static func read(prompt: String) throws(Failure) -> APIToken {
        let text: String
        if isInteractive {
            text = try readFromTerminal(prompt: prompt, echo: false)
        } else {
            text = try readLine(from: .standardInput)
        }
        guard !text.isEmpty else { throw .empty }
        do {
            return try APIToken(text)
        } catch {
            throw .invalid(error)
        }
    }

    /// The first line of a file descriptor, at most 4 KiB: a token is one line, and a huge
    /// input is a mistake we should not buffer.
    private static func readLine(from descriptor: FileDescriptor) throws(Failure) -> String {
        let newline = UInt8(ascii: "\n")
        var bytes: [UInt8]
        do {
            // One byte over 4 KiB, so that a longer line is not cut to a token that looks whole.
            bytes = try descriptor.read(upTo: 4097, stoppingAfter: newline)
        } catch {
            throw .unreadable("\(error)")
        }
        if bytes.last == newline { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func readFromTerminal(prompt: String, echo: Bool) throws(Failure) -> String {
        guard let tty = try? FileDescriptor.open("/dev/tty", .readWrite) else { throw .unreadable("no terminal to prompt on") }
        defer { try? tty.close() }
        try? tty.writeAll(prompt.terminalSafe.utf8)
        guard !echo else { return try readLine(from: tty) }
        var saved = termios()
        guard tcgetattr(tty.rawValue, &saved) == 0 else { throw .unreadable("cannot read terminal settings") }
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        silent.c_lflag |= tcflag_t(ECHONL)
        tcsetattr(tty.rawValue, TCSAFLUSH, &silent)
        // Echo comes back even when reading fails, or the user's shell is left silent.
        defer { tcsetattr(tty.rawValue, TCSAFLUSH, &saved) }
        return try readLine(from: tty)
    }
}
