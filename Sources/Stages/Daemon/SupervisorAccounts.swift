import Keyring
import Logging
import PushCore
import Settings
import StateStore

/// The account set and its diff: the keyring read again, pollers started for accounts that came,
/// retired for those that left (or that the config no longer allows), restarted on a reload; and
/// the keyring read again, with backoff, while it cannot be read.
extension Supervisor {
    /// A keyring call has waited a while for the user (an unlock or access dialog), or failed
    /// and is tried again: said in `status` and the log until the keyring answers. `wait` is
    /// the step that waits for the user, if one does.
    func keyringIsWaiting(_ what: String, for wait: KeyringWait?) {
        guard keyringWaiting != what else { return }
        logger.report(.keyringWaiting(what), to: parts.events)
        keyringWaiting = what
        keyringWait = wait
    }

    /// The keyring again, and pollers to match; nil when it was read, else why not. Pollers of
    /// accounts whose token and settings did not change go on as they are, unless
    /// `restartingEvery` (a reload).
    func refreshAccounts(restartingEvery: Bool = false) async -> String? {
        let listing: AccountListing
        do {
            listing = try await sources.accounts()
        } catch {
            // The keyring shares nothing with a stop, but a stop needs no retry either.
            guard !isStopped else { return nil }
            let reason = "\(error)"
            keyringIsWaiting(reason, for: nil)
            retryKeyring()
            return "cannot read the accounts from the keyring: \(reason)"
        }
        guard !isStopped else { return nil }
        if keyringWaiting != nil { logger.notice("the keyring answered; reading the accounts") }
        keyringWaiting = nil
        keyringWait = nil
        keyringRetry?.cancel()
        keyringRetry = nil
        for skipped in listing.skipped {
            logger.warning(skipped)
        }
        let usable = listing.accounts.filter(isAllowed).sorted { $0.account.id < $1.account.id }
        let kept = Set(usable.map(\.account.id))
        for (id, poller) in pollers where !kept.contains(id) {
            pollers[id] = nil
            await poller.retire()
            logger.report(.retired(poller.account), to: parts.events)
        }
        await desktop(.accounts(usable.map(\.account)))

        var records: [String: AccountRecord]?
        var topics: [String: Account] = [:]
        var random = parts.random.generator()
        var tokens: [String: DeviceToken] = [:]
        do {
            let made = try await state.deviceTokens(for: usable.map(\.account))
            if let warning = made.warning { logger.warning(warning) }
            tokens = made.tokens
        } catch {
            logger.error("cannot keep the accounts' device tokens in the state directory: \(error)")
        }
        for (index, stored) in usable.enumerated() where !isStopped {
            let id = stored.account.id
            if let token = tokens[id] { topics[token.hex] = stored.account }
            let poller: AccountPoller
            if let running = pollers[id] {
                // Another account came or went: this one's schedule, backoff and registration
                // stay as they are. A reload starts it again, and so registers it again.
                if !restartingEvery, running.isPolling(with: stored.token, settings: settings) { continue }
                poller = running
            } else {
                if records == nil { records = await storedRecords() }
                poller = AccountPoller(account: stored.account, record: records?[id] ?? AccountRecord(), services: services)
                poller.setOnline(network != .offline)
                poller.setRelayConnected(isRelayConnected)
                pollers[id] = poller
            }
            // First polls spread over a short window, so a login shows notices promptly
            // without every account firing in the same instant.
            let delay = PollSchedule.initialDelay(
                index: index, count: usable.count, interval: settings.pollInterval, random: &random)
            await poller.start(token: stored.token, settings: settings, firstDelay: .seconds(delay))
        }
        self.topics = topics
        logger.info("polling \(usable.count) account\(usable.count == 1 ? "" : "s")")
        return nil
    }

    /// Plain http sends the token readable by anyone on the path; the keyring takes any
    /// instance, but the daemon only talks to one that the config allows, and stops talking to
    /// one a reload no longer allows.
    private func isAllowed(_ stored: StoredAccount) -> Bool {
        let instance = stored.account.instance
        guard !settings.config.allowsToken(to: instance) else { return true }
        logger.error("""
            \(stored.account.displayName): not polled: \(instance.url) is plain http to another machine, \
            which would send the API token readable by anyone on the way; use https, or set \
            allow-http = true in \(configPath)
            """)
        return false
    }

    private func storedRecords() async -> [String: AccountRecord] {
        do {
            let (stored, warning) = try await state.loadAccounts()
            if let warning { logger.warning(warning) }
            return stored.accounts
        } catch {
            logger.error("cannot read the account state, so every account starts afresh: \(error)")
            return [:]
        }
    }

    private var services: PollerServices {
        PollerServices(state: state, registrar: registrar, desktop: desktop, logger: logger, parts: parts, wallClock: wallClock)
    }

    /// A keyring that could not be read (not running yet, locked, a prompt unanswered) is read
    /// again with the polls' backoff, until it can be or a reload reads it.
    private func retryKeyring() {
        guard keyringRetry == nil else { return }
        let schedule = PollSchedule(interval: settings.pollInterval, backoffCap: settings.backoffCap)
        let timeline = timeline
        keyringRetry = Task {
            var schedule = schedule
            var random = parts.random.generator()
            while case .after(let wait) = schedule.record(.failed(retryAfter: nil), random: &random) {
                do {
                    try await timeline.sleep(for: .seconds(wait))
                } catch {
                    return
                }
                let read = await inTurn { supervisor in
                    let problem = await supervisor.refreshAccounts()
                    _ = await supervisor.refreshRelay()
                    return problem == nil
                }
                if read { return }
            }
        }
    }
}
