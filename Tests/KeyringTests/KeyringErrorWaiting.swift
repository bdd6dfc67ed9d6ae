import Keyring

extension KeyringError {
    /// True when the keyring is there but not answering yet: locked, access refused, a prompt
    /// dismissed, no answer in time. The tests' name for the errors the daemon must take for
    /// "wait for the keyring" (it retries them), never for an empty keyring.
    var isWaitingForKeyring: Bool {
        switch self {
        case .locked, .accessRefused, .timedOut: true
        case .serviceUnavailable, .noSessionBus, .failed: false
        }
    }
}
