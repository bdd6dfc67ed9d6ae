import DBus

extension SecretService {
    /// Shows the service's prompt (to unlock, or to create a collection) and waits for the
    /// user, without a timeout, as libsecret does: they may take minutes. Returns the prompt's
    /// result; throws `KeyringError.locked` when it was dismissed, `.serviceUnavailable` when
    /// the service left the bus meanwhile.
    func complete(_ prompt: String) async throws -> DBusValue {
        guard let owner = try await connection.nameOwner(Self.busName) else { throw KeyringError.serviceUnavailable }
        // Subscribed before the prompt shows, so a quick answer is not missed; only the
        // service's own `Completed` counts, not one any peer could send.
        let completions = try await connection.signals(
            matching: DBusMatchRule(sender: owner, path: prompt, interface: Interface.prompt, member: "Completed"))
        let owners = try await connection.watchNameOwner(Self.busName)
        // No parent window to attach the prompt to.
        _ = try await call(prompt, Interface.prompt, "Prompt", [.string("")])

        let outcome = await withTaskGroup(of: PromptOutcome.self) { group in
            group.addTask {
                for await signal in completions { return .completed(signal.arguments) }
                return .ended
            }
            group.addTask {
                for await current in owners where current != owner { return .serviceLeft }
                return .ended
            }
            let first = await group.next() ?? .ended
            group.cancelAll()
            return first
        }
        switch outcome {
        case .completed(let arguments):
            let (dismissed, result) = try SecretServiceReplies.promptCompleted(arguments)
            if dismissed { throw KeyringError.locked }
            return result
        case .serviceLeft:
            throw KeyringError.serviceUnavailable
        case .ended:
            try Task.checkCancellation()
            throw KeyringError.noSessionBus
        }
    }
}

private enum PromptOutcome: Sendable {
    case completed([DBusValue])
    case serviceLeft
    /// The streams ended: the connection closed, or the wait was cancelled.
    case ended
}
