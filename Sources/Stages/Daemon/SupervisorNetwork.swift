import Logging
import PushCore
import Settings

/// Network policy: wake-ups (`Deliver`, relay messages, a relay back after a gap), sleep and the
/// network's state handed to the pollers, and the relay stream kept to match the settings and the
/// accounts' topics.
extension Supervisor {
    // MARK: - Wake-ups

    func deliverNow(_ payload: String) throws(PayloadError) -> Account {
        let account: Account
        do {
            account = try WakeUp(json: payload.utf8).account(among: pollers.values.map(\.account))
        } catch {
            deliveries.dropped += 1
            logger.debug("dropped a payload from the bus (Deliver): \(error)")
            throw error
        }
        deliveries.wakeUps += 1
        logger.debug("\(account.displayName): woken up by Deliver; polling soon")
        pollers[account.id]?.wake(.payload)
        return account
    }

    /// A relay message, from the relay stream: a wake-up for the account whose topic it came on.
    /// Nothing after the stop.
    func relayed(_ message: RelayMessage) {
        guard !isStopped else { return }
        guard let account = topics[message.topic], let poller = pollers[account.id] else {
            deliveries.dropped += 1
            logger.debug("relay message \(message.id) came on a topic of no account here")
            return
        }
        deliveries.wakeUps += 1
        poller.wake(.payload)
        logger.report(.relayWoke(account, messageID: message.id), to: parts.events)
    }

    /// The relay stream is connected; `afterGap` once it was connected before (whatever it may
    /// have missed meanwhile, each account's own poll finds). Nothing after the stop.
    func relayConnected(afterGap: Bool) {
        guard !isStopped else { return }
        setRelayConnected(true)
        if afterGap { relayReconnected() }
        parts.events.tell(.relayConnected(afterGap: afterGap))
    }

    /// The relay stream lost its connection. Nothing after the stop.
    func relayDisconnected() {
        guard !isStopped else { return }
        setRelayConnected(false)
    }

    /// The relay stream is back after a gap: whatever it may have missed, each account's own
    /// poll finds.
    private func relayReconnected() {
        logger.debug("relay reconnected; every account polls once")
        for poller in pollers.values { poller.wake(.payload) }
    }

    func setRelayConnected(_ connected: Bool) {
        isRelayConnected = connected
        for poller in pollers.values { poller.setRelayConnected(connected) }
    }

    // MARK: - Sleep and the network

    /// The system resumed from a suspend (logind, through `SystemWatch`). Nothing after the stop.
    public func resumed() {
        guard !isStopped else { return }
        networkReturned("the system resumed")
    }

    /// The system resumed, or the network came back: the relay reconnects at once, and every
    /// account polls, spread over `PollSchedule.returnWindow` (each inside its own minimum gap).
    private func networkReturned(_ why: String) {
        logger.info("\(why); reconnecting and polling every account")
        relay?.reconnectNow()
        let polled = pollers.values.sorted { $0.account.id < $1.account.id }
        let window = Duration.seconds(PollSchedule.returnWindow)
        for (index, poller) in polled.enumerated() {
            poller.wake(.networkReturned(notBefore: timeline.now + window * (Double(index) / Double(max(polled.count, 1)))))
        }
    }

    /// NetworkManager's word on the network. Offline, nothing polls or reconnects and no error
    /// is shown; back online, as after a resume.
    public func networkChanged(_ state: NetworkState) {
        guard !isStopped, state != network else { return }
        let wasOffline = network == .offline
        network = state
        let isOnline = state != .offline
        for poller in pollers.values { poller.setOnline(isOnline) }
        relay?.setOnline(isOnline)
        if state == .offline {
            logger.notice("the system is offline; polling waits for the network")
        } else if wasOffline {
            networkReturned("the network is back")
        }
        parts.events.tell(.network(state))
    }

    /// The relay stream to match the settings and the accounts' topics: started, started again
    /// when its relay, topics, token, keepalive or CA file changed, or stopped; nil when that
    /// worked, else why not.
    func refreshRelay() async -> String? {
        guard !isStopped, let relayURL = settings.config.relayURL,
              let subscription = RelaySubscription(relay: relayURL, topics: topics.keys)
        else {
            await stopRelay()
            return nil
        }
        var problem: String?
        let token: APIToken?
        do {
            token = try await sources.relayToken(relayURL)
        } catch {
            guard !isStopped else { return nil }
            let reason = "cannot read the relay token from the keyring: \(error)"
            logger.error("\(reason); the relay stream keeps the token it had")
            problem = reason
            token = relay?.settings.token
        }
        let wanted = RelaySettings(
            subscription: subscription, token: token, liveness: RelayLiveness(keepalivePeriod: settings.relayKeepalive),
            caFile: settings.config.caFile)
        guard relay?.settings != wanted, !isStopped else { return problem }
        await stopRelay()
        logger.info("relay \(relayURL.url): listening on \(subscription.topics.count) topic\(subscription.topics.count == 1 ? "" : "s")\(token == nil ? "" : " with an access token")")
        let started = await RelayStream.start(
            wanted, state: state, isOnline: network != .offline, timeline: timeline, random: parts.random, logger: logger,
            telling: self)
        // A stop() that came while the stream was starting found none to stop.
        guard !isStopped else {
            await started.stop()
            return problem
        }
        relay = started
        return problem
    }

    func stopRelay() async {
        guard let running = relay else { return }
        relay = nil
        await running.stop()
    }
}
