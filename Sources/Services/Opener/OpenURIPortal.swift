import DBus

/// xdg-desktop-portal's `org.freedesktop.portal.OpenURI`: opens a URL with the handler the user
/// chose, raised with the click's activation token, and works the same from inside a sandbox.
///
/// The URL and the token go only to the system's xdg-desktop-portal: where none runs, any program
/// could own the portal's name and be handed every clicked URL. So the name's owner is asked
/// for and trusted only when its process runs one of `systemExecutables`; the call then goes to
/// that owner's unique name, so a name that changes hands in between gets nothing. A portal
/// that does not run is not started: desktops that have one start it with the session, and
/// the launcher serves the others as well.
struct OpenURIPortal: Sendable {
    static let busName = "org.freedesktop.portal.Desktop"
    static let path = "/org/freedesktop/portal/desktop"
    static let interface = "org.freedesktop.portal.OpenURI"

    /// Where distributions install xdg-desktop-portal: Debian, Ubuntu and Fedora under
    /// libexec, Arch under lib.
    static let systemExecutables: Set<String> = ["/usr/libexec/xdg-desktop-portal", "/usr/lib/xdg-desktop-portal"]

    /// A click waits no longer than this before the URL goes to `xdg-open` instead.
    static let callTimeout = Duration.seconds(5)

    /// Why the portal was passed over.
    enum Refusal: Error, CustomStringConvertible {
        /// No portal runs: the usual case without one, said at debug level.
        case absent
        case untrusted(owner: String, executable: String?)
        case failed(DBusError)

        var description: String {
            switch self {
            case .absent: "no OpenURI portal on the session bus"
            case .untrusted(let owner, let executable):
                "\(OpenURIPortal.busName) is owned by \(owner) (\(executable ?? "an unknown program")), not by xdg-desktop-portal: it is not handed the URL"
            case .failed(let error): "\(error)"
            }
        }
    }

    let connection: DBusConnection
    let trusted: Set<String>

    /// Hands `url` to the portal. Throws when there is no portal, it is not the system's, or it
    /// refused; the portal answers before the handler runs, so a handler that fails later is
    /// the portal's to report.
    func open(_ url: String, activationToken: String?) async throws(Refusal) {
        let owner = try await trustedOwner()
        var options: [String: DBusValue] = [:]
        if let activationToken { options["activation_token"] = .string(activationToken) }
        do {
            _ = try await connection.call(
                destination: owner, path: Self.path, interface: Self.interface, member: "OpenURI",
                arguments: [.string(""), .string(url), .vardict(options)], timeout: Self.callTimeout)
        } catch {
            throw .failed(Self.dbusError(error))
        }
    }

    /// The unique name of the portal's owner, once it is known to run the system's portal.
    private func trustedOwner() async throws(Refusal) -> String {
        do {
            guard let owner = try await connection.nameOwner(Self.busName) else { throw Refusal.absent }
            let executable = try await connection.peer(owner).executable
            guard let executable, trusted.contains(executable) else { throw Refusal.untrusted(owner: owner, executable: executable) }
            return owner
        } catch let refusal as Refusal {
            throw refusal
        } catch {
            let error = Self.dbusError(error)
            throw [DBusError.Name.serviceUnknown, DBusError.Name.nameHasNoOwner].contains(error.name) ? .absent : .failed(error)
        }
    }

    private static func dbusError(_ error: any Error) -> DBusError {
        error as? DBusError ?? DBusError(name: DBusError.Name.failed, message: "\(error)")
    }
}
