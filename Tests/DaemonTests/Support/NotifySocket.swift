import Foundation
import Glibc
import PushCore
import Synchronization
import TestSupport
import Testing

/// A socket in systemd's place, receiving sd_notify datagrams (`@` names an abstract one).
final class NotifySocket: Sendable {
    let path: String
    private let descriptor: Int32

    init(path: String) throws {
        self.path = path
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout.offset(of: \sockaddr_un.sun_path)! + bytes.count + (bytes[0] == 0 ? 0 : 1))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        try #require(descriptor >= 0 && bound == 0, "cannot bind \(path): \(String(cString: strerror(errno)))")
    }

    deinit {
        close(descriptor)
        if !path.hasPrefix("@") { unlink(path) }
    }

    /// The next datagram, waited for on a thread of its own.
    func receive(timeout: Duration = .seconds(15)) async throws -> String {
        let received = await datagram(within: timeout)
        return try #require(received, "no datagram on \(path) within \(timeout)")
    }

    /// The next datagram, or nil when none came within `timeout` (zero: one already there).
    func datagram(within timeout: Duration) async -> String? {
        let descriptor = descriptor
        let milliseconds = Int32(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                guard poll(&ready, 1, milliseconds) == 1 else { return continuation.resume(returning: nil) }
                var buffer = [UInt8](repeating: 0, count: 4096)
                let count = recv(descriptor, &buffer, buffer.count, 0)
                continuation.resume(returning: count < 0 ? nil : String(decoding: buffer[..<count], as: UTF8.self))
            }
        }
    }
}
