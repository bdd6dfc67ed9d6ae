import DBus

/// xdg-desktop-portal's `org.freedesktop.portal.OpenURI`: opens a URL with the handler the user
/// chose, raised with the click's activation token, and works the same from inside a sandbox.
/// The portal is usually started by D-Bus activation on first use, so it is simply called: a
/// bus with no portal answers `ServiceUnknown` at once.
struct OpenURIPortal: Sendable {
    static let busName = "org.freedesktop.portal.Desktop"
    static let path = "/org/freedesktop/portal/desktop"
    static let interface = "org.freedesktop.portal.OpenURI"

    /// A click waits no longer than this before the URL goes to `xdg-open` instead.
    static let callTimeout = Duration.seconds(5)

    let connection: DBusConnection

    /// Hands `url` to the portal. Throws when there is no portal or it refused; the portal
    /// answers before the handler runs, so a handler that fails later is the portal's to report.
    func open(_ url: String, activationToken: String?) async throws {
        var options: [String: DBusValue] = [:]
        if let activationToken { options["activation_token"] = .string(activationToken) }
        _ = try await connection.call(
            destination: Self.busName, path: Self.path, interface: Self.interface, member: "OpenURI",
            arguments: [.string(""), .string(url), .vardict(options)], timeout: Self.callTimeout)
    }

    /// Whether `error` says there is no portal at all, rather than one that failed.
    static func isAbsent(_ error: DBusError) -> Bool {
        [DBusError.Name.serviceUnknown, DBusError.Name.nameHasNoOwner].contains(error.name)
    }
}
