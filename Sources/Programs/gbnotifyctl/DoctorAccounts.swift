import GitbayClient
import GitbaySSH
import Keyring
import PushCore

/// doctor's Secret Service and account checks: the keyring, present and unlocked, then each
/// account's instance asked `whoami` with the stored token. The token goes only into the
/// request; every finding names the account.
enum DoctorAccounts {
    /// `reference` (USER@HOST or a URL) limits the account checks to that account.
    static func check(only reference: String?, config: DoctorConfig) async -> [DoctorFinding] {
        let listing: KeyringListing
        do {
            listing = try await Setup.keyring().list()
        } catch {
            return [keyring(error)]
        }
        var findings = [DoctorFinding.secretService(holding: listing.accounts.count)]
        var accounts = listing.accounts
        if let reference {
            do {
                let chosen = try AccountReference(parsing: reference).resolve(among: accounts.map(\.account))
                accounts = accounts.filter { $0.account == chosen }
            } catch {
                return findings + [
                    DoctorFinding(
                        DoctorFinding.accountCheck(reference), .failure, "\(error)",
                        fix: Localized.text("gbnotifyctl account list shows the accounts", note: "gbnotifyctl doctor: what to do. The command stays as it is."))
                ]
            }
        } else {
            findings += listing.skipped.map { DoctorFinding.skipped(keyringItem: $0.description) }
            if accounts.isEmpty { findings.append(DoctorFinding.noAccounts) }
        }
        return findings + (await whoami(accounts, config: config))
    }

    /// Every account at once, so that several dead instances cost one timeout, not one each.
    /// The token goes where gbnotifyd would send it, and nowhere else. An account whose token
    /// gbnotifyctl minted is asked `whoami` over SSH too, with the user's key, no token.
    private static func whoami(_ accounts: [StoredAccount], config: DoctorConfig) async -> [DoctorFinding] {
        await withTaskGroup(of: (Int, DoctorFinding).self) { group in
            for (index, stored) in accounts.enumerated() {
                if let mint = stored.mint {
                    group.addTask {
                        do throws(SSHFailure) {
                            let whoami = try await GitbaySSH(remote: mint.remote).whoami()
                            return (accounts.count + index, .mintingHost(stored.account, mint.remote, whoami: whoami))
                        } catch {
                            return (accounts.count + index, .mintingHost(stored.account, mint.remote, failure: error))
                        }
                    }
                }
                let instance = stored.account.instance
                guard config.config.allowsToken(to: instance) else {
                    group.addTask { (index, .account(stored.account, plainHTTPRefusedBy: config.path)) }
                    continue
                }
                let options = config.clientOptions
                group.addTask {
                    let client = GitbayClient(instance: instance, token: stored.token, options: options)
                    do {
                        return (index, .account(stored.account, whoami: try await client.send(.whoami)))
                    } catch {
                        return (index, .account(stored.account, unreachable: "\(error)"))
                    }
                }
            }
            var findings: [(Int, DoctorFinding)] = []
            for await finding in group { findings.append(finding) }
            return findings.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    /// Tells "no Secret Service" from "locked", "refused" and "no bus", each with its own fix.
    private static func keyring(_ error: KeyringError) -> DoctorFinding {
        let check = DoctorFinding.secretServiceCheck
        switch error {
        case .serviceUnavailable:
            return DoctorFinding(
                check, .failure,
                Localized.text(
                    "none on the session bus (nothing owns org.freedesktop.secrets), so there are no accounts to poll",
                    note: "gbnotifyctl doctor, about the Secret Service. The bus name stays as it is."),
                fix: Localized.text(
                    "install and start one: gnome-keyring (apt install gnome-keyring; the desktop session starts it), or KeePassXC with its Secret Service integration enabled",
                    note: "gbnotifyctl doctor: what to do about the keyring. Use the desktops' own names for the programs and the dialog's button."))
        case .locked:
            return DoctorFinding(
                check, .failure,
                Localized.text(
                    "present, but the keyring is locked (the unlock prompt was dismissed or could not be shown)", note: "gbnotifyctl doctor, about the Secret Service."),
                fix: Localized.text("unlock it, for example in Passwords and Keys (seahorse), KeePassXC or KWallet, and run doctor again", note: "gbnotifyctl doctor: what to do about the keyring. Use the desktops' own names for the programs and the dialog's button."))
        case .accessRefused:
            return DoctorFinding(
                check, .failure,
                Localized.text("present, but it refused gbnotifyctl access to its gitbay items", note: "gbnotifyctl doctor, about the Secret Service."),
                fix: Localized.text("run doctor again and choose Allow in the keyring's access dialog (KeePassXC: Secret Service settings)", note: "gbnotifyctl doctor: what to do about the keyring. Use the desktops' own names for the programs and the dialog's button."))
        case .timedOut:
            return DoctorFinding(
                check, .failure, Localized.text("present, but it did not answer in time", note: "gbnotifyctl doctor, about the Secret Service."),
                fix: Localized.text("answer the keyring's dialog if it shows one, or restart the Secret Service, and run doctor again", note: "gbnotifyctl doctor: what to do about the keyring. Use the desktops' own names for the programs and the dialog's button."))
        case .noSessionBus:
            return DoctorFinding(
                check, .failure, Localized.text("cannot be reached without a session bus", note: "gbnotifyctl doctor, about the Secret Service."),
                fix: Localized.text("run gbnotifyctl inside your desktop session", note: "gbnotifyctl doctor: what to do."))
        case .failed(let message):
            return DoctorFinding(
                check, .failure,
                Localized.text(
                    "the keyring failed: {message}", note: "gbnotifyctl doctor, about the Secret Service. {message}: its error, in English.", ["message": message]),
                fix: Localized.text("restart the Secret Service (or log out and in again) and run doctor again", note: "gbnotifyctl doctor: what to do about the keyring. Use the desktops' own names for the programs and the dialog's button."))
        }
    }
}
