import Glibc
import MainLoop

/// systemd's readiness protocol (sd_notify): `READY=1`, `STATUS=...` and `STOPPING=1` as
/// datagrams to the `AF_UNIX` socket named in `$NOTIFY_SOCKET`, a path or, with a leading `@`,
/// a name in the abstract namespace. Nil when the variable is unset: not run by systemd with
/// `Type=notify`, nobody to tell.
public struct SystemdNotifier: Sendable {
    /// The bytes of `sun_path`: the path, or a NUL and the abstract name.
    private let address: [UInt8]
    private let isAbstract: Bool

    public init?(environment: [String: String]) {
        guard let socket = environment["NOTIFY_SOCKET"], socket.utf8.count > 1 else { return nil }
        var bytes = Array(socket.utf8)
        isAbstract = bytes[0] == UInt8(ascii: "@")
        guard isAbstract || bytes[0] == UInt8(ascii: "/"), !bytes.contains(0) else { return nil }
        if isAbstract { bytes[0] = 0 }
        // A path needs room for its terminating NUL; an abstract name is counted, not terminated.
        let room = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - (isAbstract ? 0 : 1)
        guard bytes.count <= room else { return nil }
        address = bytes
    }

    /// Sends newline-separated assignments such as `READY=1\nSTATUS=Polling 2 accounts`. Best
    /// effort, as with sd_notify: false when it could not be sent.
    @discardableResult
    public func notify(_ assignments: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var destination = sockaddr_un()
        destination.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &destination.sun_path) { path in
            path.copyBytes(from: address)
        }
        let length = MemoryLayout.offset(of: \sockaddr_un.sun_path)! + address.count + (isAbstract ? 0 : 1)
        let message = Array(assignments.utf8)
        let sent = withUnsafePointer(to: &destination) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                message.withUnsafeBytes {
                    sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), socketAddress, socklen_t(length))
                }
            }
        }
        return sent == message.count
    }
}

/// The daemon's readiness as systemd hears it: `READY=1` with the first status, then the
/// status alone. Ready means serving on the bus; a keyring that waits for its unlock dialog
/// must not hold that up past systemd's start timeout, so a wait is a status of its own.
///
/// Told only by `Lifecycle.run` and its tasks, on the loop.
@LoopActor
final class Readiness {
    private let notifier: SystemdNotifier?
    private var isReady = false

    init(_ notifier: SystemdNotifier?) {
        self.notifier = notifier
    }

    func status(_ status: String) {
        let first = !isReady
        isReady = true
        notifier?.notify((first ? "READY=1\n" : "") + "STATUS=\(status)")
    }

    func stopping() {
        notifier?.notify("STOPPING=1")
    }
}
