import PushCore

/// What the noise commands ask of an account's own instance, with its own token: the watch state
/// of a repository, marking everything read, and the latest rows of the inbox.
extension AccountItems {
    /// `repo mute|watch|unwatch OWNER/REPO`; the state the server says it is in now.
    func setWatch(_ change: GitbayCommand.WatchChange, of repository: String, for account: Account) async throws(ReadProblem) -> WatchState {
        let state: WatchState = try await request(.repo(change, repository: repository), as: account)
        guard state.state == change.resultingState else {
            throw ReadProblem(
                .failed, ReadProblem.unexpectedAnswer,
                "\(account.instance.displayName) answered repo \(change.rawValue) with the state \(state.state), not \(change.resultingState)")
        }
        return state
    }

    /// `issue|mr react ... REACTION [--remove]`: what the server says it did.
    func react(_ reaction: String, remove: Bool, on destination: NotificationDestination, of account: Account) async throws(ReadProblem) -> ReactionResult {
        try await request(.react(destination, reaction: reaction, remove: remove), as: account)
    }

    /// `notifications read --all`: how many rows it marked.
    func markAllRead(of account: Account) async throws(ReadProblem) -> Int {
        let result: ReadResult = try await request(.notificationsReadAll, as: account)
        return result.read
    }

    /// The newest `count` rows of the inbox, read ones too.
    func latestRows(of account: Account, count: Int) async throws(ReadProblem) -> [InboxItem] {
        let page: InboxPage = try await request(.notificationsList(limit: count, cursor: nil, includingRead: true), as: account)
        return page.items
    }

    private func request<Answer: Decodable>(_ command: GitbayCommand, as account: Account) async throws(ReadProblem) -> Answer {
        let result = try await send(command, as: account)
        do {
            return try result.decode(Answer.self)
        } catch {
            throw Self.problem(error, account)
        }
    }
}
