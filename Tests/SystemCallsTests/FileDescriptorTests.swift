import Foundation
import Glibc
import Synchronization
import SystemCalls
import Testing

/// How many times the test's SIGURG handler ran. SIGURG because nothing else in gbnotify uses
/// it, and its default action (ignore) is harmless should one ever reach another thread.
private let interruptions = Atomic<Int>(0)

/// read(2)'s number in /proc's `syscall` files.
#if arch(x86_64)
private let readSystemCall = "0"
#elseif arch(arm64)
private let readSystemCall = "63"
#endif

/// fcntl.h's, which Swift's Glibc module leaves out (it is a GNU extension).
private let F_SETPIPE_SZ: Int32 = 1031

@Suite struct FileDescriptorTests {
    /// A pipe: (read end, write end).
    private func pipe() throws -> (FileDescriptor, FileDescriptor) {
        var ends: [Int32] = [0, 0]
        try #require(Glibc.pipe(&ends) == 0)
        return (FileDescriptor(rawValue: ends[0]), FileDescriptor(rawValue: ends[1]))
    }

    /// Runs `body` on a thread of its own (never the cooperative pool, which it would block);
    /// the returned wait gives its result.
    private func onThread<Value: Sendable>(_ body: @escaping @Sendable () -> Value) -> @Sendable () -> Value {
        let result = Mutex<Value?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let value = body()
            result.withLock { $0 = value }
            done.signal()
        }
        return {
            done.wait()
            return result.withLock { $0! }
        }
    }

    /// Waits, up to a generous bound, until `condition` holds.
    private func waitUntil(_ what: Comment, _ condition: () -> Bool) throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while !condition() {
            try #require(ContinuousClock.now < deadline, what)
            usleep(1000)
        }
    }

    /// Whether thread `tid` of this process is blocked in read(2) now: /proc says which system
    /// call a sleeping thread is in, by number.
    private func isBlockedInRead(_ tid: Int32) -> Bool {
        let text = (try? String(contentsOfFile: "/proc/self/task/\(tid)/syscall", encoding: .utf8)) ?? ""
        return text.split(separator: " ").first.map(String.init) == readSystemCall
    }

    @Test func aReadInterruptedBySignalsIsMadeAgain() throws {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in interruptions.add(1, ordering: .relaxed) }
        // No SA_RESTART: the kernel returns EINTR from read(2) rather than restarting it.
        action.sa_flags = 0
        sigemptyset(&action.sa_mask)
        var previous = sigaction()
        try #require(sigaction(SIGURG, &action, &previous) == 0)
        defer { sigaction(SIGURG, &previous, nil) }
        let (reader, writer) = try pipe()
        defer { try? reader.close() }

        let thread = Mutex<(tid: Int32, handle: pthread_t)?>(nil)
        let result = onThread { () -> Result<[UInt8], Errno> in
            var urgent = sigset_t()
            sigemptyset(&urgent)
            sigaddset(&urgent, SIGURG)
            pthread_sigmask(SIG_UNBLOCK, &urgent, nil)
            // "PID/task/TID": this thread's id as /proc names it.
            let tid = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")).flatMap { Int32($0.split(separator: "/").last ?? "") } ?? 0
            thread.withLock { $0 = (tid, pthread_self()) }
            return Result { () throws(Errno) in try reader.read(upTo: 100) }
        }
        try waitUntil("the reading thread started") { thread.withLock { $0 != nil } }
        let (tid, handle) = thread.withLock { $0! }
        try #require(tid > 0)
        let before = interruptions.load(ordering: .relaxed)
        for signal in 1...3 {
            try waitUntil("the thread is blocked in read(2), time \(signal)") { isBlockedInRead(tid) }
            #expect(pthread_kill(handle, SIGURG) == 0)
            try waitUntil("the handler ran \(signal) times") { interruptions.load(ordering: .relaxed) - before == signal }
        }
        try writer.writeAll(Array("after three signals".utf8))
        try writer.close()
        #expect(try result().get() == Array("after three signals".utf8))
    }

    @Test func aBoundedReadTakesNoMoreThanItsLimit() throws {
        let (reader, writer) = try pipe()
        defer { try? reader.close() }
        try writer.writeAll(Array("0123456789".utf8))
        try writer.close()
        #expect(try reader.read(upTo: 3) == Array("012".utf8))
        // What was not asked for is still there for the next read.
        #expect(try reader.read(upTo: 1000) == Array("3456789".utf8))
        #expect(try reader.read(upTo: 1000) == [])
    }

    @Test func aBoundedReadStopsAfterItsTerminatorAndTakesNothingPastIt() throws {
        let (reader, writer) = try pipe()
        defer { try? reader.close() }
        try writer.writeAll(Array("first\nsecond\nthird".utf8))
        try writer.close()
        #expect(try reader.read(upTo: 100, stoppingAfter: UInt8(ascii: "\n")) == Array("first\n".utf8))
        #expect(try reader.read(upTo: 4, stoppingAfter: UInt8(ascii: "\n")) == Array("seco".utf8))
        #expect(try reader.read(upTo: 100) == Array("nd\nthird".utf8))
    }

    /// A non-blocking pipe of one page takes a write of 1 MiB a page at a time, and refuses the
    /// rest (EAGAIN) until the reader makes room: every byte still arrives, in order.
    @Test func writeAllWritesEveryByteThroughShortWrites() throws {
        let (reader, writer) = try pipe()
        defer { try? reader.close() }
        try #require(fcntl(writer.rawValue, F_SETPIPE_SZ, 4096) >= 0)
        try #require(fcntl(writer.rawValue, F_SETFL, O_NONBLOCK) == 0)
        let bytes = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 * 7 + $0 / 251) }
        let received = onThread { Result { () throws(Errno) in try reader.read(upTo: 2 << 20) } }
        try writer.writeAll(bytes)
        try writer.close()
        let got = try received().get()
        #expect(got.count == bytes.count)
        #expect(got == bytes)
    }

    @Test func failuresAreTypedErrors() throws {
        #expect(throws: Errno.noSuchFileOrDirectory) {
            try FileDescriptor.open("/nonexistent/\(UUID().uuidString)", .readOnly)
        }
        #expect(Errno.noSuchFileOrDirectory.description == "No such file or directory")
        let (reader, writer) = try pipe()
        try writer.close()
        try reader.close()
        #expect(throws: Errno(rawValue: EBADF)) { try reader.read(upTo: 1) }
    }
}
