import CommandKit
import LocalTime
import PushCore
import StateStore

/// `gbnotifyctl mute ACCOUNT OWNER/REPO`: no more notices of a repository, on the server.
struct MuteCommand: RepoWatchCommand {
    static let configuration = CommandConfiguration(
        name: "mute",
        abstract: "Mute a repository on the account's server: no new notices of it anywhere.",
        positionals: [SharedPositionals.account, SharedPositionals.repository],
        discussion: """
            Runs gitbay's repo mute with the account's token: the server files no more inbox rows
            (nor mail, nor push) for the repository, on every client of the account. Nothing is
            marked read. gbnotify notes the mute, since gitbay lists none ('gbnotifyctl mutes'
            shows them), and a running gbnotifyd is told to reload. Undo with 'gbnotifyctl
            unmute'.
            """
    )

    static let change = GitbayCommand.WatchChange.mute
    let target: RepoWatch

    func done(_ account: Account) -> String {
        Localized.text(
            "Muted {repository} on {account}: no new notices of it, on any client of {user}. Undo: {command}",
            note: "gbnotifyctl mute. {repository}: owner/name; {account}: user@host; {user}: the user name; {command}: the command that takes it back (stays English).",
            ["repository": target.repository, "account": account.displayName, "user": account.username,
             "command": "gbnotifyctl unmute \(account.reference) \(target.repository)"])
    }
}

/// `gbnotifyctl unmute ACCOUNT OWNER/REPO`: `repo unwatch`, back to the default.
struct UnmuteCommand: RepoWatchCommand {
    static let configuration = CommandConfiguration(
        name: "unmute",
        abstract: "Undo a mute: the repository's notices come again (gitbay's default).",
        positionals: [SharedPositionals.account, SharedPositionals.repository],
        discussion: """
            Runs gitbay's repo unwatch with the account's token, which puts the repository back to
            the default: notices of the work the account is part of. It is also how a watch is
            undone. A running gbnotifyd is told to reload.
            """
    )

    static let change = GitbayCommand.WatchChange.unwatch
    let target: RepoWatch

    func done(_ account: Account) -> String {
        Localized.text(
            "Unmuted {repository} on {account}: back to the default, notices of the work {user} is part of.",
            note: "gbnotifyctl unmute. {repository}: owner/name; {account}: user@host; {user}: the user name.",
            ["repository": target.repository, "account": account.displayName, "user": account.username])
    }
}

/// `gbnotifyctl watch ACCOUNT OWNER/REPO`: `repo watch`, every issue and merge request.
struct WatchCommand: RepoWatchCommand {
    static let configuration = CommandConfiguration(
        name: "watch",
        abstract: "Watch a repository: a notice of every issue and merge request of it.",
        positionals: [SharedPositionals.account, SharedPositionals.repository],
        discussion: """
            Runs gitbay's repo watch with the account's token. A muted repository is no longer
            muted afterwards. 'gbnotifyctl unmute' puts it back to the default.
            """
    )

    static let change = GitbayCommand.WatchChange.watch
    let target: RepoWatch

    func done(_ account: Account) -> String {
        Localized.text(
            "Watching {repository} on {account}: a notice of every issue and merge request of it.",
            note: "gbnotifyctl watch. {repository}: owner/name; {account}: user@host.", ["repository": target.repository, "account": account.displayName])
    }
}

/// `mute`, `unmute` and `watch`: one watch change each, and what to say when it is done.
protocol RepoWatchCommand: Command {
    static var change: GitbayCommand.WatchChange { get }
    var target: RepoWatch { get }
    init(target: RepoWatch)
    func done(_ account: Account) -> String
}

extension RepoWatchCommand {
    init(parsing arguments: inout Arguments) throws(UsageError) {
        self.init(target: try RepoWatch(parsing: &arguments))
    }

    func run() async throws -> Int32 {
        try await target.run(Self.change, done: done)
    }
}

/// What `mute`, `unmute` and `watch` share: the account and repository they name, the request,
/// the record of mutes, and the reload.
struct RepoWatch: Sendable {
    let account: String
    let repository: String

    init(parsing arguments: inout Arguments) throws(UsageError) {
        account = try arguments.positional(SharedPositionals.account)
        let text = try arguments.positional(SharedPositionals.repository)
        guard let repository = NotificationDestination.repository(parsing: text) else {
            throw UsageError(
                Localized.text(
                    "'{text}' names no repository; use OWNER/REPO", note: "A usage error of gbnotifyctl. {text}: what was given. OWNER/REPO stays as it is.",
                    ["text": text.displaySafe(truncatedTo: 200)]))
        }
        self.repository = repository
    }

    /// Sends `change` and prints what `done` says of it; the record notes a mute and forgets
    /// one on anything else.
    func run(_ change: GitbayCommand.WatchChange, done: (Account) -> String) async throws -> Int32 {
        let source = Setup.accountItems()
        let account = try await source.account(self.account)
        _ = try await source.setWatch(change, of: repository, for: account)
        print(done(account))
        var status = ExitStatus.success
        do {
            let (noted, warning) = try Setup.stateDirectory().updateNoise { [repository] (record: inout NoiseRecord) -> Bool in
                record.note(change, of: repository, account: account, at: SystemZone.now())
            }
            if let warning { Console.error(Localized.text("gbnotifyctl: warning: {warning}", note: "A warning of gbnotifyctl. {warning}: what, in English.", ["warning": "\(warning)"])) }
            if !noted {
                Console.error(
                    Localized.text(
                        "gbnotifyctl: warning: the record of mutes is full ({limit}); 'gbnotifyctl mutes' will not list this one",
                        note: "A warning of gbnotifyctl mute. {limit}: how many mutes the record holds.", ["limit": "\(NoiseRecord.maximumMutes)"]))
            }
        } catch {
            Console.error(
                Localized.text(
                    "gbnotifyctl: the server did it, but the record of mutes could not be written: {error}",
                    note: "An error of gbnotifyctl mute. {error}: why, in English.", ["error": "\(error)"]))
            status = ExitStatus.failure
        }
        await DaemonCall.reloadIfRunning()
        return status
    }
}

/// `gbnotifyctl mutes`: the repositories gbnotify muted, from its own record.
struct MutesCommand: Command {
    static let configuration = CommandConfiguration(
        name: "mutes",
        abstract: "List the repositories muted with gbnotify, account by account.",
        discussion: """
            gitbay has no command that lists an account's mutes, so this is gbnotify's own record
            of what 'gbnotifyctl mute' (or a notification's Mute) muted and has not unmuted since;
            a mute made on the web or with the gitbay CLI is not in it. One line each: the account,
            the repository, and when it was muted (local time).
            """
    )

    init(parsing arguments: inout Arguments) throws(UsageError) {}

    func run() async throws -> Int32 {
        let (record, warning) = try Setup.stateDirectory().loadNoise()
        if let warning { Console.error(Localized.text("gbnotifyctl: warning: {warning}", note: "A warning of gbnotifyctl. {warning}: what, in English.", ["warning": "\(warning)"])) }
        guard !record.mutes.isEmpty else {
            print(
                Localized.text(
                    "No repository muted with gbnotify. Mute one with: {command}", note: "gbnotifyctl mutes. {command}: the command (stays English).",
                    ["command": "gbnotifyctl mute ACCOUNT OWNER/REPO"]))
            return ExitStatus.success
        }
        let zone = SystemZone.offsets
        for mute in record.mutes {
            let when = Localized.text(
                "muted {date} {time}", note: "gbnotifyctl mutes: when a repository was muted. {date}: as 2026-12-07; {time}: as 14:30.",
                ["date": "\(zone.date(of: mute.at))", "time": "\(TimeOfDay.of(mute.at, zone: zone))"])
            print("\(mute.account.reference)\t\(mute.repo)\t\(when)")
        }
        return ExitStatus.success
    }
}
