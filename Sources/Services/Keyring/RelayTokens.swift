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
        try await withService { service throws(KeyringError) in
            try await service.store(
                token.secret, label: "gbnotify relay token for \(relay.displayName)",
                attributes: [RelayAttribute.url: relay.url], schema: .relay)
            for item in try await service.items(of: .relay) where item.names(relay) && item.attributes[RelayAttribute.url] != relay.url {
                _ = try await service.delete(item.path)
            }
        }
    }

    /// The token for `relay`, nil when there is none (or it is not a usable token); the newest
    /// item wins when there are several.
    public func relayToken(for relay: GitbayInstance) async throws(KeyringError) -> APIToken? {
        try await withService { service throws(KeyringError) in
            try await service.items(of: .relay)
                .filter { $0.names(relay) }
                .sorted { $0.modified > $1.modified }
                .lazy.compactMap { try? APIToken($0.secret) }.first
        }
    }

    /// Deletes every token item for `relay`; true when there was one.
    public func deleteRelayToken(for relay: GitbayInstance) async throws(KeyringError) -> Bool {
        try await withService { service throws(KeyringError) in
            var deleted = false
            for item in try await service.items(of: .relay) where item.names(relay) {
                if try await service.delete(item.path) { deleted = true }
            }
            return deleted
        }
    }
}

enum RelayAttribute {
    static let url = "url"
}

extension KeyringItem {
    fileprivate func names(_ relay: GitbayInstance) -> Bool {
        guard let url = attributes[RelayAttribute.url] else { return false }
        return (try? GitbayInstance(parsing: url, allowInsecureHTTP: true)) == relay
    }
}
