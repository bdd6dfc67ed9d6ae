import PushCore

/// How a payload reached the daemon; for the log.
public enum DeliveryRoute: Sendable {
    /// A `message` event of the relay stream.
    case relay
    /// `org.gitbay.Notify1.Deliver`, as `gbnotifyctl deliver` calls it.
    case bus
}

/// What became of one delivered payload.
public enum DeliveryOutcome: Sendable, Equatable {
    /// The notice is on screen now.
    case shown
    /// The notice was on screen already, from a poll or an earlier payload.
    case alreadyShown
    /// The payload was a wake-up, and its account polls now. A notice that found no
    /// notification server to show it is one too: the poll keeps its row until one appears.
    case wokeUp
    /// Nothing was done, for the reason given: one line, safe to print.
    case dropped(String)
}

extension Supervisor {
    /// Handles one payload, a relay event's `message` or a `Deliver` argument: shows a notice
    /// of one of the polled accounts (once, whether a poll shows it too), wakes an account's
    /// poller, or drops it with a debug line. Every outcome is counted for `Status()`.
    public func deliver(_ message: String, via route: DeliveryRoute) async -> DeliveryOutcome {
        let outcome = await handle(message)
        switch outcome {
        case .shown: deliveries.shown += 1
        case .alreadyShown: deliveries.alreadyShown += 1
        case .wokeUp: deliveries.wakeUps += 1
        case .dropped(let reason):
            deliveries.dropped += 1
            logger.debug("dropped a payload from the \(route.name): \(reason)")
        }
        return outcome
    }

    private func handle(_ message: String) async -> DeliveryOutcome {
        let route: PayloadRoute
        do {
            route = try PayloadRoute.route(message.utf8, among: pollers.values.map(\.account))
        } catch {
            return .dropped("\(error)")
        }
        switch route {
        case .wakeUp(let account):
            guard let poller = pollers[account.id] else { return .dropped("\(account.displayName) is no longer polled") }
            logger.debug("\(account.displayName): woken up by a payload; polling now")
            poller.pollNow()
            return .wokeUp
        case .notice(let notice, let badge):
            guard let poller = pollers[notice.account.id] else {
                return .dropped("\(notice.account.displayName) is no longer polled")
            }
            if let badge {
                poller.board.update { $0.unread = badge }
                poller.shownNotices.badgeArrived()
                await presenter.present(AccountUpdate(account: notice.account, notices: [], unread: .exact(badge), withdrawn: []))
            }
            guard case .new(let reference) = poller.shownNotices.arrive(notice.key) else {
                logger.debug("\(notice.account.displayName): a payload for \(notice.destination.path) is shown already")
                return .alreadyShown
            }
            guard await presenter.present(poller.delivered(notice, reference: reference)) else {
                poller.shownNotices.withdraw(reference)
                poller.pollNow()
                return .wokeUp
            }
            return .shown
        }
    }
}

extension DeliveryRoute {
    fileprivate var name: String {
        switch self {
        case .relay: "relay"
        case .bus: "bus (Deliver)"
        }
    }
}
