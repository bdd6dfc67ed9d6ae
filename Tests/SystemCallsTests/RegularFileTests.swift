import Foundation
import Glibc
import SystemCalls
import Testing

@Suite struct RegularFileTests {
    private func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)").path
    }

    @Test func aRegularFileIsReadUpToTheLimit() throws {
        let path = temporaryPath("regular")
        try Data("twelve bytes".utf8).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        #expect(try FileDescriptor.readRegularFile(path, upTo: 100) == Array("twelve bytes".utf8))
        #expect(try FileDescriptor.readRegularFile(path, upTo: 6) == Array("twelve".utf8))
    }

    @Test func noFileIsNil() throws {
        #expect(try FileDescriptor.readRegularFile(temporaryPath("absent"), upTo: 10) == nil)
    }

    /// A FIFO with no writer would hold a blocking open(2) for ever: refused at once, unread.
    @Test func aFIFOIsRefusedWithoutWaitingForAWriter() throws {
        let fifo = temporaryPath("fifo")
        try #require(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        #expect(throws: RegularFileError.notRegular(.fifo)) { try FileDescriptor.readRegularFile(fifo, upTo: 10) }
        #expect(RegularFileError.notRegular(.fifo).description == "it is a FIFO, not a regular file")
    }

    @Test func anUnopenableFileSaysSo() throws {
        let path = temporaryPath("link")
        try #require(symlink("/etc/hostname", path) == 0)
        defer { unlink(path) }
        #expect(throws: RegularFileError.cannotOpen(Errno(rawValue: ELOOP))) {
            try FileDescriptor.readRegularFile(path, upTo: 10, options: .noFollow)
        }
    }

    @Test func devicesAndDirectoriesAreRefused() throws {
        #expect(throws: RegularFileError.notRegular(.characterDevice)) { try FileDescriptor.readRegularFile("/dev/zero", upTo: 10) }
        #expect(throws: RegularFileError.cannotRead(.isDirectory)) { try FileDescriptor.readRegularFile("/", upTo: 10) }
    }

    @Test func aSocketIsRefused() throws {
        let path = temporaryPath("socket")
        let socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(socket >= 0)
        defer { Glibc.close(socket); unlink(path) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8.prefix($0.count - 1))) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0)
        #expect(throws: RegularFileError.notRegular(.socket)) { try FileDescriptor.readRegularFile(path, upTo: 10) }
    }
}
