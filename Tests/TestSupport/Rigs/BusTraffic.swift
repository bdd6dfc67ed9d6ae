import Foundation
import Glibc
import Synchronization

/// What `dbus-monitor` sees on a session's bus: every message matching its rules, in the order
/// the bus routed them, whoever they were sent to. For what no signal tells: a reply that never
/// came, a second answer to one call, or that a server has just answered someone (mako's list
/// changes only then).
///
/// The monitor runs with the session's environment, so it stops with the session at the latest;
/// `stop()` or the last reference stops it before.
public final class BusTraffic: Sendable {
    public struct Message: Sendable, Equatable {
        public enum Kind: String, Sendable {
            case methodCall = "method call"
            case methodReturn = "method return"
            case error
            case signal
        }

        public let kind: Kind
        public let sender: String
        /// nil for a broadcast signal.
        public let destination: String?
        /// nil for an error (dbus-monitor does not show its serial).
        public let serial: UInt32?
        /// The serial of the call a return or an error answers.
        public let replySerial: UInt32?
        public let interface: String?
        public let member: String?
        public let errorName: String?
        /// For a return or an error: the call it answers, when the monitor saw that call.
        public internal(set) var answering: Call?

        /// The call a return or an error answers.
        public struct Call: Sendable, Equatable {
            public let sender: String
            public let serial: UInt32
            public let interface: String?
            public let member: String?
        }

        /// Whether this is a return or an error answering `call`.
        public func answers(_ call: Message) -> Bool {
            (kind == .methodReturn || kind == .error) && call.kind == .methodCall
                && destination == call.sender && replySerial == call.serial
        }
    }

    private let pid: pid_t
    /// Apart from the monitor's handle, so that the reading thread does not keep it alive.
    private let log = Log()
    private let stopped = Mutex(false)

    /// Starts `dbus-monitor` on `session`'s bus with `rules` (the bus's match-rule syntax, such
    /// as `type='method_return'`) and returns once it monitors.
    public static func watch(_ session: DesktopSession, matching rules: [String]) async throws -> BusTraffic {
        let traffic = try BusTraffic(argv: ["dbus-monitor", "--session"] + rules, environment: session.environment)
        // It gives up its own names once it has become a monitor, and says so.
        try await traffic.wait(timeout: .seconds(30), "dbus-monitor to monitor", includingOwn: true) {
            $0.contains { $0.member == "NameLost" } ? true : nil
        }
        return traffic
    }

    private init(argv: [String], environment: [String: String]) throws {
        let output = try Subprocess.pipe()
        let null = try Subprocess.openFile("/dev/null", flags: O_RDWR)
        defer {
            close(output.write)
            close(null)
        }
        do {
            pid = try Subprocess.spawn(argv, stdin: null, stdout: output.write, stderr: null, environment: environment)
        } catch {
            close(output.read)
            throw error
        }
        let (reading, log) = (output.read, log)
        Thread.detachNewThread {
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 16384)
            while true {
                let count = read(reading, &buffer, buffer.count)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                pending += buffer[..<count]
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    if let message = Self.parse(String(decoding: pending[..<newline], as: UTF8.self)) {
                        log.received(message)
                    }
                    pending.removeSubrange(...newline)
                }
            }
            close(reading)
            log.finish()
        }
    }

    deinit {
        guard stopped.withLock({ !$0 }) else { return }
        kill(pid, SIGKILL)
        let pid = self.pid
        blockingQueue().async { Subprocess.waitForExit(pid) }
    }

    /// Stops the monitor and waits until it has exited.
    public func stop() async {
        guard stopped.withLock({ stopped in defer { stopped = true }; return !stopped }) else { return }
        kill(pid, SIGTERM)
        let pid = self.pid
        _ = await offCooperativePool { Subprocess.waitForExit(pid) }
    }

    /// Every message seen so far, in the bus's order (the monitor's own names left out).
    public var messages: [Message] {
        Self.withoutOwn(log.messages)
    }

    /// `check`'s first non-nil answer: asked now, then after each new message for which
    /// `wakesOn` holds (by default, any).
    @discardableResult
    public func wait<Value: Sendable>(
        timeout: Duration = .seconds(30), _ what: String,
        wakingOn wakesOn: @escaping @Sendable (Message) -> Bool = { _ in true },
        until check: @escaping @Sendable ([Message]) async throws -> Value?
    ) async throws -> Value {
        try await wait(timeout: timeout, what, includingOwn: false, wakingOn: wakesOn, until: check)
    }

    @discardableResult
    private func wait<Value: Sendable>(
        timeout: Duration, _ what: String, includingOwn: Bool,
        wakingOn wakesOn: @escaping @Sendable (Message) -> Bool = { _ in true },
        until check: @escaping @Sendable ([Message]) async throws -> Value?
    ) async throws -> Value {
        let (id, changes) = log.subscribe()
        defer { log.unsubscribe(id) }
        let log = self.log
        let current: @Sendable () -> [Message] = {
            includingOwn ? log.messages : Self.withoutOwn(log.messages)
        }
        return try await withDeadline(timeout, what) {
            var seen = 0
            if let found = try await check(current()) { return found }
            for await _ in changes {
                let all = current()
                let woken = all[min(seen, all.count)...].contains(where: wakesOn)
                seen = all.count
                if woken, let found = try await check(all) { return found }
            }
            throw DesktopSession.Failure(description: "dbus-monitor ended while waiting for \(what)")
        }
    }

    /// The messages read so far, and who waits for more.
    private final class Log: Sendable {
        private let state = Mutex<(messages: [Message], waiters: [UInt64: AsyncStream<Void>.Continuation], next: UInt64, ended: Bool)>(
            ([], [:], 0, false))

        var messages: [Message] { state.withLock { $0.messages } }

        /// A stream that yields after each new message, and ends with the monitor.
        func subscribe() -> (UInt64, AsyncStream<Void>) {
            let (changes, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
            let id = state.withLock { state in
                defer { state.next += 1 }
                if state.ended { continuation.finish() } else { state.waiters[state.next] = continuation }
                return state.next
            }
            return (id, changes)
        }

        func unsubscribe(_ id: UInt64) {
            _ = state.withLock { $0.waiters.removeValue(forKey: id) }
        }

        func received(_ message: Message) {
            var message = message
            let waiters = state.withLock { state in
                if let replySerial = message.replySerial, let destination = message.destination,
                   let call = state.messages.last(where: {
                       $0.kind == .methodCall && $0.sender == destination && $0.serial == replySerial
                   }) {
                    message.answering = Message.Call(
                        sender: call.sender, serial: replySerial, interface: call.interface, member: call.member)
                }
                state.messages.append(message)
                return Array(state.waiters.values)
            }
            waiters.forEach { $0.yield() }
        }

        func finish() {
            let waiters = state.withLock { state in
                state.ended = true
                defer { state.waiters = [:] }
                return Array(state.waiters.values)
            }
            waiters.forEach { $0.finish() }
        }
    }

    /// The monitor's own NameAcquired and NameLost, sent to it alone as it starts.
    private static func withoutOwn(_ messages: [Message]) -> [Message] {
        guard let own = messages.first(where: { $0.member == "NameLost" })?.destination else { return messages }
        return messages.filter { $0.destination != own }
    }

    /// dbus-monitor's default format: a header line per message ("method return time=... sender=:1.2
    /// -> destination=:1.4 serial=4 reply_serial=3", "signal ... serial=9 path=/p; interface=i;
    /// member=m"), then its arguments, indented. Only headers are read.
    static func parse(_ line: String) -> Message? {
        guard let head = line.firstMatch(
            of: #/^(method call|method return|error|signal) time=\S+ sender=(\S+) -> destination=(\S+)(.*)$/#),
            let kind = Message.Kind(rawValue: String(head.1))
        else { return nil }
        var fields: [String: String] = [:]
        for token in head.4.split(separator: " ") {
            guard let equals = token.firstIndex(of: "=") else { continue }
            var value = token[token.index(after: equals)...]
            if value.last == ";" { value = value.dropLast() }
            fields[String(token[..<equals])] = String(value)
        }
        let destination = String(head.3)
        return Message(
            kind: kind, sender: String(head.2), destination: destination.hasPrefix("(null") ? nil : destination,
            serial: fields["serial"].flatMap { UInt32($0) }, replySerial: fields["reply_serial"].flatMap { UInt32($0) },
            interface: fields["interface"], member: fields["member"], errorName: fields["error_name"], answering: nil)
    }
}
