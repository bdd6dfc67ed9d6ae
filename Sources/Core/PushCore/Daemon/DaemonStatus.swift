/// What the daemon reports about itself: the JSON that `org.gitbay.Notify1.Status()` returns and
/// `gbnotifyctl status --json` prints, and the table `gbnotifyctl status` prints.
///
/// Keys are snake_case; absent values are `null`, never left out. Decoding ignores keys it does
/// not know and reads a state it does not know as `unknown`, so an older `gbnotifyctl` can read
/// a newer daemon.
public struct DaemonStatus: Codable, Equatable, Sendable {
    public let version: String
    public let uptimeSeconds: Int
    public let configPath: String
    /// Why the accounts could not be read (a locked keyring, a refused access, a prompt left
    /// open), in English; null once they were. The accounts below are the ones read last.
    public let keyringWaiting: String?
    /// The step of the keyring that waits for the user, when one does (`keyring_wait`): what
    /// `gbnotifyctl status` words in the user's language. Null while nothing waits, and while
    /// the keyring fails otherwise (then only `keyringWaiting` says why).
    public let keyringWait: KeyringWait?
    /// Whether the system says it is online (NetworkManager), offline, or cannot say.
    public let network: NetworkState
    public let accounts: [AccountStatus]
    /// What became of the wake-ups handed to the daemon (relay and `Deliver`) since it started.
    public let deliveries: DeliveryCounts
    /// The relay stream: configured or not, connected, where it stands.
    public let relay: RelayStatus

    public init(
        version: String, uptimeSeconds: Int, configPath: String, keyringWaiting: String? = nil,
        keyringWait: KeyringWait? = nil, network: NetworkState = .unknown, accounts: [AccountStatus], deliveries: DeliveryCounts = DeliveryCounts(),
        relay: RelayStatus = RelayStatus()
    ) {
        self.version = version
        self.uptimeSeconds = uptimeSeconds
        self.configPath = configPath
        self.keyringWaiting = keyringWaiting
        self.keyringWait = keyringWait
        self.network = network
        self.accounts = accounts
        self.deliveries = deliveries
        self.relay = relay
    }

    private enum CodingKeys: String, CodingKey {
        case version
        case uptimeSeconds = "uptime_seconds"
        case configPath = "config_path"
        case keyringWaiting = "keyring_waiting"
        case keyringWait = "keyring_wait"
        case network
        case accounts
        case deliveries
        case relay
    }

    /// Written out by hand only so that a status from an older daemon, without the newer keys,
    /// still reads (as nothing waiting, network unknown, no payloads, no relay).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decode(String.self, forKey: .version)
        uptimeSeconds = try container.decode(Int.self, forKey: .uptimeSeconds)
        configPath = try container.decode(String.self, forKey: .configPath)
        keyringWaiting = try container.decodeIfPresent(String.self, forKey: .keyringWaiting)
        keyringWait = try? container.decodeIfPresent(KeyringWait.self, forKey: .keyringWait)
        network = try container.decodeIfPresent(NetworkState.self, forKey: .network) ?? .unknown
        accounts = try container.decode([AccountStatus].self, forKey: .accounts)
        deliveries = try container.decodeIfPresent(DeliveryCounts.self, forKey: .deliveries) ?? DeliveryCounts()
        relay = try container.decodeIfPresent(RelayStatus.self, forKey: .relay) ?? RelayStatus()
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(version, forKey: .version)
        try container.encode(uptimeSeconds, forKey: .uptimeSeconds)
        try container.encode(configPath, forKey: .configPath)
        try container.encode(keyringWaiting, forKey: .keyringWaiting)
        try container.encode(keyringWait, forKey: .keyringWait)
        try container.encode(network, forKey: .network)
        try container.encode(accounts, forKey: .accounts)
        try container.encode(deliveries, forKey: .deliveries)
        try container.encode(relay, forKey: .relay)
    }
}

/// What the system says of the network (NetworkManager's `State` and `Connectivity`).
public enum NetworkState: String, Codable, Sendable {
    case online
    /// Nothing polls or reconnects, and no error is shown, until the network is back.
    case offline
    /// No NetworkManager to ask: polling goes on, and failures back off as usual.
    case unknown

    public init(from decoder: any Decoder) throws {
        let raw = try decoder.singleValueContainer().decode(String.self)
        self = NetworkState(rawValue: raw) ?? .unknown
    }
}

public struct AccountStatus: Codable, Equatable, Sendable {
    /// `Account.id`: `cmc@https://gitbay.org`.
    public var id: String
    /// The normalised instance URL.
    public var instance: String
    public var user: String
    public var state: AccountState
    /// ISO 8601, as the daemon formats it.
    public var lastPoll: String?
    /// The last poll's result: in JSON its English words (`last_result`, such as
    /// `304 not modified` or `timeout`) and its facts (`last_result_status`, `_outcome`, `_new`).
    public var lastResult: PollResult?
    /// ISO 8601; null while polling is stopped.
    public var nextPoll: String?
    public var unread: Int?
    /// The id `device add` returned; null while unregistered.
    public var deviceID: Int64?
    /// The last error, in words for the user.
    public var lastError: String?
    /// Why and until when popups are held (`Hold`), such as `snoozed until 15:30`, in English
    /// and the daemon's local time; null while they pop up.
    public var popupsHeld: String?
    /// The same hold as facts (`popups_held_reason`, `popups_held_until` in seconds since the
    /// epoch), which `gbnotifyctl status` words in the user's language.
    public var hold: Hold?

    public init(
        id: String, instance: String, user: String, state: AccountState, lastPoll: String? = nil,
        lastResult: PollResult? = nil, nextPoll: String? = nil, unread: Int? = nil, deviceID: Int64? = nil,
        lastError: String? = nil, popupsHeld: String? = nil, hold: Hold? = nil
    ) {
        self.id = id
        self.instance = instance
        self.user = user
        self.state = state
        self.lastPoll = lastPoll
        self.lastResult = lastResult
        self.nextPoll = nextPoll
        self.unread = unread
        self.deviceID = deviceID
        self.lastError = lastError
        self.popupsHeld = popupsHeld
        self.hold = hold
    }

    private enum CodingKeys: String, CodingKey {
        case id, instance, user, state, unread
        case lastPoll = "last_poll"
        case lastResult = "last_result"
        case lastResultStatus = "last_result_status"
        case lastResultOutcome = "last_result_outcome"
        case lastResultNew = "last_result_new"
        case nextPoll = "next_poll"
        case deviceID = "device_id"
        case lastError = "last_error"
        case popupsHeld = "popups_held"
        case popupsHeldReason = "popups_held_reason"
        case popupsHeldUntil = "popups_held_until"
    }

    /// Written out by hand for the facts of the last result and the hold: a daemon that sent
    /// only their words (an older one), or a fact this build does not know, still reads.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        instance = try container.decode(String.self, forKey: .instance)
        user = try container.decode(String.self, forKey: .user)
        state = try container.decode(AccountState.self, forKey: .state)
        lastPoll = try container.decodeIfPresent(String.self, forKey: .lastPoll)
        let words = try container.decodeIfPresent(String.self, forKey: .lastResult)
        let status = (try? container.decodeIfPresent(Int.self, forKey: .lastResultStatus)) ?? nil
        let outcome = ((try? container.decodeIfPresent(String.self, forKey: .lastResultOutcome)) ?? nil).flatMap(PollResult.Outcome.init)
        if let outcome {
            let new = (try? container.decodeIfPresent(Int.self, forKey: .lastResultNew)) ?? nil
            lastResult = PollResult(outcome, httpStatus: status, newNotices: new ?? 0)
        } else {
            lastResult = words.map { PollResult(said: $0, httpStatus: status) }
        }
        nextPoll = try container.decodeIfPresent(String.self, forKey: .nextPoll)
        unread = try container.decodeIfPresent(Int.self, forKey: .unread)
        deviceID = try container.decodeIfPresent(Int64.self, forKey: .deviceID)
        lastError = try container.decodeIfPresent(String.self, forKey: .lastError)
        popupsHeld = try container.decodeIfPresent(String.self, forKey: .popupsHeld)
        if let reason = (try? container.decodeIfPresent(Hold.Reason.self, forKey: .popupsHeldReason)) ?? nil,
           let until = (try? container.decodeIfPresent(Int64.self, forKey: .popupsHeldUntil)) ?? nil
        {
            hold = Hold(reason: reason, until: until)
        } else {
            hold = nil
        }
    }

    /// Written out by hand so that absent values are `null` rather than missing keys, and the
    /// last result's facts stand beside its English words.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(instance, forKey: .instance)
        try container.encode(user, forKey: .user)
        try container.encode(state, forKey: .state)
        try container.encode(lastPoll, forKey: .lastPoll)
        try container.encode(lastResult?.description, forKey: .lastResult)
        try container.encode(lastResult?.httpStatus, forKey: .lastResultStatus)
        try container.encode(lastResult?.outcome?.rawValue, forKey: .lastResultOutcome)
        try container.encode(lastResult.map(\.newNotices), forKey: .lastResultNew)
        try container.encode(nextPoll, forKey: .nextPoll)
        try container.encode(unread, forKey: .unread)
        try container.encode(deviceID, forKey: .deviceID)
        try container.encode(lastError, forKey: .lastError)
        try container.encode(popupsHeld, forKey: .popupsHeld)
        try container.encode(hold?.reason, forKey: .popupsHeldReason)
        try container.encode(hold?.until, forKey: .popupsHeldUntil)
    }
}

/// Where an account stands, as one word for scripts.
public enum AccountState: String, Codable, CaseIterable, Sendable {
    /// Loaded; the first poll has not answered yet.
    case starting
    /// Polling works.
    case ok
    /// Polls fail (network, server errors, rate limits); retrying with backoff.
    case backingOff = "backing_off"
    /// The system is offline: the account polls as soon as the network is back.
    case offline
    /// The server rejected the token (401); polling stopped until the account gets a new one.
    case needsToken = "needs_token"
    /// Polling works, but the instance sends no push (`[push] enabled = false`), so a relay
    /// cannot help this account.
    case pushUnavailable = "push_unavailable"
    /// Polling works, but registering this install failed (read-only token, network); retried
    /// on the next start or reload.
    case registrationFailed = "registration_failed"
    /// A state this build does not know, from a newer daemon.
    case unknown

    public init(from decoder: any Decoder) throws {
        let raw = try decoder.singleValueContainer().decode(String.self)
        self = AccountState(rawValue: raw) ?? .unknown
    }
}

extension DaemonStatus {
    /// What `gbnotifyctl status` prints: the daemon, one line per account, then the accounts'
    /// errors, in the session's language; a hold's end is said as seen at `now` in `zone`. Every
    /// string is made one harmless line first, as errors carry server text.
    public func renderText(at now: Int64, zone: ZoneOffsets) -> String {
        var lines = [
            Localized.text(
                "gbnotifyd {version}, up {uptime}, config {path}",
                note: "gbnotifyctl status's first line. {version}: gbnotifyd's version; {uptime}: how long it has run (\"3h 20m\"); {path}: its config file.",
                ["version": Self.clean(version, 32), "uptime": Self.duration(uptimeSeconds), "path": Self.clean(configPath, 200)])
        ]
        if network == .offline {
            lines.append(
                Localized.text("offline: nothing polls until the network is back", note: "A line of gbnotifyctl status while the system is offline."))
        }
        if let keyringWait {
            lines.append(keyringWait.spoken)
        } else if let keyringWaiting {
            lines.append(
                Localized.text(
                    "waiting for the keyring: {reason}", note: "A line of gbnotifyctl status. {reason}: what the keyring is waiting for, in English.",
                    ["reason": Self.clean(keyringWaiting, 300)]))
        }
        if deliveries != DeliveryCounts() {
            lines.append(
                Localized.text(
                    "wake-ups: {polled} polled, {dropped} dropped",
                    note: "A line of gbnotifyctl status about the relay's wake-ups. {polled}: how many led to a poll; {dropped}: how many were dropped.",
                    ["polled": String(deliveries.wakeUps), "dropped": String(deliveries.dropped)]))
        }
        if let relayLine = relay.renderedLine(clean: Self.clean) { lines.append(relayLine) }
        lines.append("")
        guard !accounts.isEmpty else {
            // While the keyring cannot be read, "no accounts" would be a guess.
            lines.append(
                keyringWaiting == nil
                    ? Localized.text(
                        "No accounts. Add one with: {command}", note: "gbnotifyctl status without accounts. {command}: the command (stays English).",
                        ["command": "gbnotifyctl account add URL"])
                    : Localized.text("No accounts read yet.", note: "gbnotifyctl status while the keyring cannot be read yet."))
            return lines.joined(separator: "\n") + "\n"
        }

        let header = [
            Localized.text("ACCOUNT", note: "A column heading of gbnotifyctl status, in capitals where the script has them."),
            Localized.text("STATE", note: "A column heading of gbnotifyctl status: the account's state (the words under it stay English)."),
            Localized.text("UNREAD", note: "A column heading of gbnotifyctl status: how many notices are unread."),
            Localized.text("LAST POLL", note: "A column heading of gbnotifyctl status: when the account was last polled."),
            Localized.text("RESULT", note: "A column heading of gbnotifyctl status: the last poll's result."),
            Localized.text("NEXT POLL", note: "A column heading of gbnotifyctl status: when the account is polled next."),
        ]
        let rows = accounts.map { account in
            [
                account.displayName,
                account.state.rawValue,
                account.unread.map(String.init) ?? "-",
                account.lastPoll.map { Self.clean($0, 40) } ?? "-",
                account.lastResult.map { Self.clean($0.spoken, 24) } ?? "-",
                account.nextPoll.map { Self.clean($0, 40) } ?? "-",
            ]
        }
        let widths = header.indices.map { column in
            ([header] + rows).map { $0[column].count }.max() ?? 0
        }
        for row in [header] + rows {
            let cells = row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
            }
            lines.append(cells.joined(separator: "  "))
        }

        lines += section(Localized.text("Popups held:", note: "A heading of gbnotifyctl status: the accounts whose popups wait."), limit: 80) {
            $0.hold.map { $0.spoken(at: now, zone: zone) } ?? $0.popupsHeld
        }
        lines += section(Localized.text("Errors:", note: "A heading of gbnotifyctl status: each account's last error."), limit: 300, \.lastError)
        return lines.joined(separator: "\n") + "\n"
    }

    /// A heading and a line for each account that has `fact`, after a blank line; nothing when
    /// no account has it.
    private func section(_ heading: String, limit: Int, _ fact: (AccountStatus) -> String?) -> [String] {
        let lines = accounts.compactMap { account in
            fact(account).map { "  \(account.displayName): \(Self.clean($0, limit))" }
        }
        return lines.isEmpty ? [] : ["", heading] + lines
    }

    fileprivate static func clean(_ text: String, _ limit: Int) -> String {
        text.displaySafe(truncatedTo: limit)
    }

    /// `45s`, `12m 5s`, `3h 20m`, `2d 4h`: the two largest units.
    static func duration(_ seconds: Int) -> String {
        let seconds = max(seconds, 0)
        let (days, hours, minutes) = (seconds / 86_400, seconds / 3600 % 24, seconds / 60 % 60)
        if days > 0 { return "\(days)d \(hours)h" }
        if hours > 0 { return "\(hours)h \(minutes)m" }
        if minutes > 0 { return "\(minutes)m \(seconds % 60)s" }
        return "\(seconds)s"
    }
}

extension AccountStatus {
    /// `cmc@gitbay.org`: the instance without `https://` (an `http://` one keeps its scheme,
    /// which is worth noticing).
    var displayName: String {
        let host = instance.hasPrefix("https://") ? String(instance.dropFirst("https://".count)) : instance
        return DaemonStatus.clean("\(user)@\(host)", 80)
    }
}

extension NetworkState {
    /// NetworkManager's `State` (NMState) and `Connectivity` (NMConnectivityState), nil where
    /// it did not say. Offline only when there is no connection at all (asleep, disconnected,
    /// disconnecting, connecting): a connection to the local network alone still reaches an
    /// instance on it. `Connectivity` decides only when `State` is unknown (0): none (1) is
    /// offline, anything above online.
    public init(networkManagerState state: UInt32?, connectivity: UInt32?) {
        switch (state, connectivity) {
        case (let state?, _) where (10..<50).contains(state): self = .offline
        case (let state?, _) where state >= 50: self = .online
        case (_, 1?): self = .offline
        case (_, let connectivity?) where connectivity >= 2: self = .online
        default: self = .unknown
        }
    }
}
