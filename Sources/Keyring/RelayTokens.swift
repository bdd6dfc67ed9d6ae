import PushCore

/// Relay access tokens in the keyring: items of schema `org.gitbay.Relay` with attribute `url`
/// (the relay's normalised URL), the token as the secret. Never in the config file, which is
/// often world-readable and kept in dotfile repositories. `secret-tool store --label=L
/// xdg:schema org.gitbay.Relay url URL` adds one too.
///
/// Like accounts, items are matched by the relay they name, so another spelling of the URL is
/// found, replaced and deleted like ours.
extension Keyring {
    public func storeRelayToken(_ token: APIToken, for relay: GitbayInstance) async throws(KeyringError) {
        try await onKeyringThread { () throws(KeyringError) in
            try SecretStore.store(
                token.secret, label: "gbnotify relay token for \(relay.displayName)",
                attributes: [RelayAttribute.url: relay.url], schema: .relay)
            for item in try SecretStore.allItems(of: .relay)
            where item.names(relay) && item.attributes[RelayAttribute.url] != relay.url {
                _ = try SecretStore.deleteItems(withExactly: item.attributes)
            }
        }
    }

    /// The token for `relay`, nil when there is none (or it is not a usable token); the newest
    /// item wins when there are several.
    public func relayToken(for relay: GitbayInstance) async throws(KeyringError) -> APIToken? {
        try await onKeyringThread { () throws(KeyringError) in
            try SecretStore.allItems(of: .relay)
                .filter { $0.names(relay) }
                .sorted { $0.modified > $1.modified }
                .lazy.compactMap { try? APIToken($0.secret) }.first
        }
    }

    /// Deletes every token item for `relay`; true when there was one.
    public func deleteRelayToken(for relay: GitbayInstance) async throws(KeyringError) -> Bool {
        try await onKeyringThread { () throws(KeyringError) in
            var deleted = false
            for item in try SecretStore.allItems(of: .relay) where item.names(relay) {
                if try SecretStore.deleteItems(withExactly: item.attributes) { deleted = true }
            }
            return deleted
        }
    }
}

enum RelayAttribute {
    static let url = "url"
}

extension SecretStore.Schema {
    static let relay = SecretStore.Schema(name: "org.gitbay.Relay", attributes: [RelayAttribute.url])
}

extension KeyringItem {
    fileprivate func names(_ relay: GitbayInstance) -> Bool {
        guard let url = attributes[RelayAttribute.url] else { return false }
        return (try? GitbayInstance(parsing: url, allowInsecureHTTP: true)) == relay
    }
}
