import CommandKit
import Glibc
import PushCore
import SystemCalls

/// `gbnotifyctl deliver`: hands one push payload, read from standard input, to the running
/// daemon's `Deliver`, the way a local relay would: a wake-up for the account it names.
struct DeliverCommand: Command {
    static let configuration = CommandConfiguration(
        name: "deliver",
        abstract: "Wake the account a push payload on standard input names.",
        standardInput: "PAYLOAD.json",
        discussion: """
            The payload is the JSON gitbay pushes, or just {"instance": URL, "user": NAME},
            at most \(WakeUp.maximumSize) bytes. The account it names polls now (wake-ups of one
            account are at least 2 s apart), and what it shows comes from its own API: nothing
            else in the payload is read. Prints the account woken. Exits with status 1, saying
            why, when the daemon woke none (not a payload, no such account here) or when no
            gbnotifyd is running.
            """
    )

    init(parsing arguments: inout Arguments) throws(UsageError) {}

    func run() async throws -> Int32 {
        let payload: String
        do {
            payload = try PayloadInput.read()
        } catch {
            Console.error("gbnotifyctl: \(error)")
            return ExitStatus.failure
        }
        return await DaemonCall.run(.deliver, [.string(payload)]) { reply in
            "gbnotifyctl: \((reply.first?.stringValue ?? "the account").displaySafe(truncatedTo: 200)) polls now"
        }
    }
}

/// Standard input, read whole but never more than a payload can be.
private enum PayloadInput {
    enum Failure: Error, CustomStringConvertible {
        case terminal
        case empty
        case tooLarge
        case notUTF8
        case unreadable(String)

        var description: String {
            switch self {
            case .terminal: "pipe the payload on standard input: gbnotifyctl deliver < payload.json"
            case .empty: "standard input is empty; pipe the payload on it"
            case .tooLarge: "the payload on standard input is over \(WakeUp.maximumSize) bytes"
            case .notUTF8: "the payload on standard input is not UTF-8 text"
            case .unreadable(let why): "cannot read standard input: \(why)"
            }
        }
    }

    static func read() throws(Failure) -> String {
        guard isatty(0) != 1 else { throw .terminal }
        let limit = WakeUp.maximumSize
        let bytes: [UInt8]
        do {
            // One byte past the limit is enough to know it is too large; the rest is never read.
            bytes = try FileDescriptor.standardInput.read(upTo: limit + 1)
        } catch {
            throw .unreadable("\(error)")
        }
        guard bytes.count <= limit else { throw .tooLarge }
        guard !bytes.isEmpty else { throw .empty }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .notUTF8 }
        return text
    }
}
