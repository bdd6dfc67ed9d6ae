import Accounts
import GitbaySSH
import PushCore

/// What `account add --ssh` and `account import` share: minting with a name of this machine's,
/// and saying what came of it.
enum Minting {
    static func mint(instance: GitbayInstance, remote: SSHRemote, tokenName: String?, manager: AccountManager) async throws(AccountFailure) -> AddReport {
        try await manager.mint(instance: instance, over: GitbaySSH(remote: remote), tokenName: tokenName ?? defaultTokenName())
    }

    /// `gbnotifyd on HOSTNAME` and six random hex digits.
    static func defaultTokenName() -> String {
        var generator = SystemRandomNumberGenerator()
        let suffix = String(UInt32.random(in: 0...0xFF_FFFF, using: &generator), radix: 16)
        return SSHAnswer.tokenName(hostname: AccountManager.localHostname, suffix: String(repeating: "0", count: 6 - suffix.count) + suffix)
    }

    /// `Added cmc@gitbay.org (registered as device 7).`, with the registration's trouble when it
    /// did not register.
    static func addedLine(_ report: AddReport) -> String {
        switch report.registration {
        case .registered(let id):
            Localized.text(
                "Added {account} (registered as device {id}).", note: "gbnotifyctl account add. {account}: user@host; {id}: the device's id.",
                ["account": report.account.displayName, "id": "\(id)"])
        case .pushUnavailable, .readOnlyToken, .failed:
            Localized.text(
                "Added {account}. Desktop polling works, but this install could not register: {reason}.",
                note: "gbnotifyctl account add. {account}: user@host; {reason}: why (a message of its own, in lower case).",
                ["account": report.account.displayName, "reason": report.registration.spoken])
        }
    }

    /// The token gbnotify had minted for the account before is revoked; when that failed, the
    /// user is told what to run.
    static func warnAboutReplacedToken(_ report: AddReport) {
        if let revocation = report.replacedRevocation, case .failed = revocation {
            Console.error(
                Localized.text(
                    "gbnotifyctl: warning: the account's previous {revocation}",
                    note: "A warning of gbnotifyctl account add. {revocation}: what became of the token gbnotify minted before, in English.",
                    ["revocation": "\(revocation)"]))
        }
    }
}
