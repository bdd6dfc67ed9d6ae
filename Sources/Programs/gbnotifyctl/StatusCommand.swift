import CommandKit
import LocalTime
import PushCore

/// `gbnotifyctl status`: what the running daemon is doing, from its `Status()`.
struct StatusCommand: Command {
    static let configuration = CommandConfiguration(
        name: "status",
        abstract: "Show what the running gbnotifyd is doing, account by account.",
        discussion: """
            Asks the running gbnotifyd over the session bus. Exits with status 1 when no
            gbnotifyd is running.
            """,
        options: [json]
    )
    static let json = Option("--json", help: "Print the daemon's JSON instead of a table.")

    var json: Bool

    init(parsing arguments: inout Arguments) throws(UsageError) {
        json = arguments.flag(Self.json)
    }

    func run() async throws -> Int32 {
        let answer = await DaemonCall.call(.status, timeout: DaemonCall.statusTimeout)
        guard case .replied(let reply) = answer else {
            if case .failed(let reason) = answer {
                Console.error(
                    Localized.text(
                        "gbnotifyctl: gbnotifyd did not tell its status: {reason}",
                        note: "An error of gbnotifyctl status. {reason}: why, in English.", ["reason": reason]))
            } else {
                Console.error("gbnotifyctl: \(answer.trouble ?? "")")
            }
            return ExitStatus.failure
        }
        guard let (status, json) = DaemonCall.status(in: reply) else {
            Console.error(
                Localized.text(
                    "gbnotifyctl: gbnotifyd did not tell its status: its answer is not a status",
                    note: "An error of gbnotifyctl status: the daemon's answer could not be read."))
            return ExitStatus.failure
        }
        if self.json {
            Console.json(json)
        } else {
            Console.out(status.renderText(at: SystemZone.now(), zone: SystemZone.offsets), terminator: "")
        }
        return ExitStatus.success
    }
}
