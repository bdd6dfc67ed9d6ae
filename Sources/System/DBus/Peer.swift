import Glibc
import SystemCalls

/// Who is behind a connection on the bus: what the bus says of it (`DBusConnection.peer(_:)`)
/// and what `/proc` says of its process, for the daemon's checks on its callers and on the
/// portal it hands URLs to.
///
/// The process is found by the pid the bus took from the socket when the peer connected: a peer
/// that has exited since may have a successor under the same pid, which the checks below then
/// read instead. They are a gate for programs of the same user, not a boundary against root.
public struct DBusPeer: Sendable, Equatable {
    public let uid: UInt32?
    public let pid: UInt32?
    /// The Linux security module's label (AppArmor's `snap.firefox.firefox (enforce)`), when
    /// the bus knows one.
    public let securityLabel: String?

    public init(uid: UInt32?, pid: UInt32?, securityLabel: String?) {
        self.uid = uid
        self.pid = pid
        self.securityLabel = securityLabel
    }

    /// The program the peer's process runs (`/proc/PID/exe`), nil when it cannot be read.
    public var executable: String? {
        pid.flatMap { RunningProgram.executable(ofProcess: pid_t(bitPattern: $0)) }
    }

    /// Whether the process runs in a Flatpak sandbox: Flatpak puts `/.flatpak-info` at the root
    /// of every sandbox it makes, and xdg-desktop-portal reads it the same way. A process whose
    /// root cannot be looked into counts as sandboxed.
    public var isInFlatpak: Bool {
        guard let pid else { return true }
        let root = "/proc/\(pid)/root"
        guard access(root + "/", F_OK) == 0 else { return true }
        return access(root + "/.flatpak-info", F_OK) == 0
    }
}
