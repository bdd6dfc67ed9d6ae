import CommandKit
import LocalTime
import PushCore

/// `gbnotifyctl snooze 1h|30m|until HH:MM|off [--account A]`: popups held for a while, the record
/// of it in the state directory so that it outlives a restart.
struct SnoozeCommand: Command {
    static let configuration = CommandConfiguration(
        name: "snooze",
        abstract: "Hold popups for a while (or until a time), for every account or one.",
        positionals: [length],
        discussion: """
            LENGTH is hours and minutes, such as 1h, 30m or 1h30m (a minute to a week); until HH:MM
            is the next time the local clock shows it (today, or tomorrow once it has passed); off
            ends the snooze (with --account, that account's own: a snooze of every account still
            holds it). While snoozed nothing pops up: polls go on and the badge still counts, and
            at the end one summary per account says what came meanwhile. The snooze is kept in the
            state directory, so it outlives a restart of gbnotifyd, which is told to reload.
            """,
        options: [account]
    )
    static let length = Positional(
        "(LENGTH | until HH:MM | off)", help: "length (1h, 30m), until or off", completion: .choices(["1h", "30m", "until", "off"]),
        takesRest: true)
    static let account = Option(
        "--account", .required("ACCOUNT"), help: "Snooze (or end the snooze of) this account only.", completion: .account)

    let request: SnoozeRequest
    let account: String?

    init(parsing arguments: inout Arguments) throws(UsageError) {
        account = try arguments.value(of: Self.account)
        let words = arguments.rest(Self.length)
        do {
            request = try SnoozeRequest(parsing: words)
        } catch {
            throw UsageError(error.spoken)
        }
    }

    func run() async throws -> Int32 {
        var account: Account?
        if let reference = self.account { account = try await Setup.accountItems().account(reference) }
        let whom = account?.displayName ?? Localized.text("every account", note: "gbnotifyctl snooze: whom a snooze is for, in the messages that name {whom}.")
        let (zone, now) = (SystemZone.offsets, SystemZone.now())
        let state = try Setup.stateDirectory()
        if let end = request.end(from: now, zone: zone) {
            let warning = try state.updateNoise { [account] in $0.snooze(account, until: end, now: now) }.warning
            if let warning { Console.error(Localized.text("gbnotifyctl: warning: {warning}", note: "A warning of gbnotifyctl. {warning}: what, in English.", ["warning": "\(warning)"])) }
            print(
                Localized.text(
                    "Snoozed {whom} until {time}.", note: "gbnotifyctl snooze. {whom}: user@host, or the message \"every account\"; {time}: as 14:30 or tomorrow 08:00.",
                    ["whom": whom, "time": Hold.spokenTime(end, at: now, zone: zone)]))
        } else {
            let (ended, warning) = try state.updateNoise { [account] in $0.endSnooze(account, now: now) }
            if let warning { Console.error(Localized.text("gbnotifyctl: warning: {warning}", note: "A warning of gbnotifyctl. {warning}: what, in English.", ["warning": "\(warning)"])) }
            print(
                ended
                    ? Localized.text(
                        "Snooze off for {whom}.", note: "gbnotifyctl snooze off. {whom}: user@host, or the message \"every account\".", ["whom": whom])
                    : account.map {
                        Localized.text("{account} was not snoozed.", note: "gbnotifyctl snooze off. {account}: user@host.", ["account": $0.displayName])
                    } ?? Localized.text("Nothing was snoozed.", note: "gbnotifyctl snooze off."))
        }
        switch await DaemonCall.call(.reload) {
        case .replied:
            break
        case .notRunning, .noBus:
            print(Localized.text("gbnotifyd is not running; it will read the snooze when it starts.", note: "gbnotifyctl snooze."))
        case .failed(let reason):
            Console.error(
                Localized.text(
                    "gbnotifyctl: warning: the running gbnotifyd did not reload: {reason}",
                    note: "An error of gbnotifyctl. {reason}: the daemon's answer, in English.", ["reason": reason]))
        }
        return ExitStatus.success
    }
}
