import Glibc

/// A TCP port on 127.0.0.1 that is bound, so nobody else takes it, but not listening, so a
/// connection to it is refused.
public final class BoundButNotListeningPort: Sendable {
    public let number: Int
    private let descriptor: Int32

    public init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.descriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else { throw SocketError() }
        number = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }

    public struct SocketError: Error {}
}
