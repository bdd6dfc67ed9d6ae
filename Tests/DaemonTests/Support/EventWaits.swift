import PushCore

/// The waits on what a daemon told (`DaemonEvent`), for the in-process harness and the real
/// binary alike, so that a test reads the same whichever runs the daemon.
extension Observed where Value == [DaemonEvent] {
    /// Waits until `count` of the events told match; those.
    @discardableResult
    func waitFor(
        _ what: String, count: Int = 1, timeout: Duration = .seconds(15), _ matches: @escaping @Sendable (DaemonEvent) -> Bool
    ) async throws -> [DaemonEvent] {
        try await wait(for: "\(count) × \(what)", timeout: timeout) { $0.count(where: matches) >= count }.filter(matches)
    }
}

extension DaemonEvent {
    /// A poll of `account` that ended in words starting with `words` (so "200 ok" is any list,
    /// "200 ok, 1 new" one with a single new row).
    static func isPoll(of account: Account, saying words: String) -> @Sendable (DaemonEvent) -> Bool {
        { event in
            if case .polled(account, let said, _) = event { said.hasPrefix(words) } else { false }
        }
    }

    /// A failed poll of `account`.
    static func isFailedPoll(of account: Account) -> @Sendable (DaemonEvent) -> Bool {
        { event in
            if case .polled(account, _, failed: true) = event { true } else { false }
        }
    }

    /// `row` of `account` shown, the newest of its group.
    static func isShown(row: Int64, of account: Account) -> @Sendable (DaemonEvent) -> Bool {
        { event in
            if case .shown(account, .group(let group), _, _) = event { group.newest.id == row } else { false }
        }
    }

    /// A summary of `count` notices shown.
    static func isSummary(of count: Int) -> @Sendable (DaemonEvent) -> Bool {
        { event in
            if case .shown(_, .summary(let summary), _, _) = event { summary.count == count } else { false }
        }
    }

    /// The server's id of the notification a `.shown` put on screen.
    var shownNotification: UInt32? {
        if case .shown(_, _, let notification, _) = self { notification } else { nil }
    }
}

/// What tests of the real binary wait for, by its events.
extension RunningDaemon {
    /// Waits until the daemon withdrew notification `id`.
    func waitForWithdrawal(of id: UInt32) async throws {
        try await waitForEvent("notification \(id) withdrawn") { $0 == .withdrawn(notification: id) }
    }

    /// Waits until the daemon heard the server close notification `id` (for `reason`, when
    /// given: 1 expired, 2 dismissed, 3 closed by a call).
    func waitForServerClosing(_ id: UInt32, reason: UInt32? = nil) async throws {
        try await waitForEvent("notification \(id) closed by the server") { event in
            guard case .closedByServer(notification: id, let said) = event else { return false }
            return reason == nil || said == reason
        }
    }

    /// Waits until the daemon took a click on `action` of notification `id`.
    func waitForClick(_ action: String, on id: UInt32) async throws {
        try await waitForEvent("\"\(action)\" taken on notification \(id)") { $0 == .clicked(notification: id, action: action) }
    }

    /// Waits until `rows` of `account` were marked read on its instance, in one request.
    func waitForMarkedRead(_ rows: [Int], of account: Account) async throws {
        try await waitForEvent("notices \(rows) marked read") { $0 == .markedRead(account, rows.map(Int64.init)) }
    }

    /// Waits until `repository` was muted (or unmuted) on the instance of `account`.
    func waitForMute(of repository: String, on account: Account, muted: Bool = true) async throws {
        try await waitForEvent("\(repository) \(muted ? "muted" : "unmuted")") {
            $0 == .repositoryMuted(account, repository: repository, muted: muted)
        }
    }

    /// Waits until a summary of `count` notices was shown.
    func waitForSummary(of count: Int) async throws {
        try await waitForEvent("a summary of \(count) shown", DaemonEvent.isSummary(of: count))
    }

    /// Waits until the daemon took over `count` notifications an earlier one left open.
    func waitForAdoption(of count: Int) async throws {
        try await waitForEvent("\(count) notifications taken over") { $0 == .adopted(count: count) }
    }

    /// Waits until `count` clicks in all opened something; what each opened.
    @discardableResult
    func waitForOpenings(_ count: Int) async throws -> [[String]] {
        try await waitForEvent("something opened", count: count) { event in
            if case .opened = event { true } else { false }
        }.compactMap { event in
            if case .opened(let argv) = event { argv } else { nil }
        }
    }
}

/// The registration and the relay, by the binary's events.
extension RunningDaemon {
    /// Waits until `account` registered its device token and got a device id.
    func waitForRegistration(of account: Account) async throws {
        try await waitForEvent("\(account.displayName) registered") { event in
            if case .registered(account, deviceID: _?, _) = event { true } else { false }
        }
    }

    /// Waits until the relay stream is connected (`count` times in all).
    func waitForRelayConnection(count: Int = 1) async throws {
        try await waitForEvent("the relay connected", count: count) { event in
            if case .relayConnected = event { true } else { false }
        }
    }

    /// Waits until relay message `messageID` woke an account (`account`, when given).
    func waitForRelayWake(by messageID: String, of account: Account? = nil) async throws {
        try await waitForEvent("relay message \(messageID) woke \(account?.displayName ?? "an account")") { event in
            guard case .relayWoke(let woken, messageID) = event else { return false }
            return account == nil || woken == account
        }
    }

    /// How many polls of `account` so far ended in words starting with `words`.
    func polls(of account: Account, saying words: String) -> Int {
        events.value.count(where: DaemonEvent.isPoll(of: account, saying: words))
    }
}
