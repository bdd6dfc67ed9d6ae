import Foundation
import Glibc
import TestSupport
import Testing

/// What `dbus-monitor` sees of the notification server's interface on a session's bus: every
/// method call to it and every signal of it, whoever it is sent to (GNOME's helper and dunst
/// send theirs to the caller of Notify alone).
final class BusMonitor: Sendable {
    struct Message: Sendable, Equatable {
        let isSignal: Bool
        let sender: String
        /// nil for a broadcast.
        let destination: String?
        let member: String
        /// The leading uint32 arguments: a signal's notification id (and NotificationClosed's
        /// reason); none for Notify, whose first argument is a string.
        let numbers: [UInt32]
        /// Every string among its arguments, nested ones included, in order: a Notify's texts,
        /// its actions' keys and labels, its hints' names and string values.
        let strings: [String]

        var firstUInt32: UInt32? { numbers.first }

        /// The string that follows `key` (a hint's value after its name, an action's label after
        /// its key), or nil.
        func value(after key: String) -> String? {
            guard let index = strings.firstIndex(of: key), index + 1 < strings.count else { return nil }
            return strings[index + 1]
        }
    }

    private let process: RunningDaemon

    init(on session: DesktopSession) async throws {
        let interface = NotificationsInterface.name
        // Its lines on standard error, where RunningDaemon reads them.
        process = try RunningDaemon(
            argv: ["sh", "-c", "exec dbus-monitor --session \"$0\" \"$1\" >&2",
                   "type='method_call',interface='\(interface)'", "type='signal',interface='\(interface)'"],
            environment: session.environment)
        // It gives up its bus name once it monitors.
        try await process.lines.wait(for: "dbus-monitor to monitor") { $0.contains { $0.hasSuffix("member=NameLost") } }
    }

    var messages: [Message] { Self.parse(process.lines.value) }

    /// The messages once `condition` holds.
    @discardableResult
    func wait(for what: String, until condition: @escaping @Sendable ([Message]) -> Bool) async throws -> [Message] {
        Self.parse(try await process.lines.wait(for: what) { condition(Self.parse($0)) })
    }

    func stop() async {
        process.send(SIGTERM)
        _ = try? await process.waitForExit()
    }

    /// dbus-monitor's default format: a line per message ("signal time=... sender=:1.10 ->
    /// destination=:1.14 serial=24 path=...; interface=...; member=ActionInvoked"), then its
    /// arguments, indented, one a line ("   uint32 7"). A message counts only once a line that
    /// is not a number follows it, or its numbers are all there (NotificationClosed's two):
    /// until then its arguments may still be on their way. Its strings are whole once the next
    /// message has begun ("   string \"...\"", or "variant" before it, as dbus-monitor prints
    /// them; a string with a newline is cut at it).
    private static func parse(_ lines: [String]) -> [Message] {
        var messages: [Message] = []
        for (index, line) in lines.enumerated() {
            guard let head = line.firstMatch(
                of: #/^(signal|method call) time=\S+ sender=(\S+) -> destination=(\S+) .* member=(\S+)$/#)
            else { continue }
            let following = lines[(index + 1)...]
            let numbers = following.prefix { $0.firstMatch(of: #/^ +uint32 \d+$/#) != nil }
            guard numbers.count < following.count || (head.4 == "NotificationClosed" && numbers.count == 2) else { break }
            let destination = String(head.3)
            let arguments = following.prefix { $0.hasPrefix(" ") }
            messages.append(Message(
                isSignal: head.1 == "signal", sender: String(head.2),
                destination: destination.hasPrefix("(null") ? nil : destination, member: String(head.4),
                numbers: numbers.compactMap { UInt32($0.split(separator: " ").last ?? "") },
                strings: arguments.compactMap { $0.firstMatch(of: #/^ +(?:variant +)?string "(.*)"$/#).map { String($0.1) } }))
        }
        return messages
    }
}

extension [BusMonitor.Message] {
    /// The messages of one member (`Notify`, `ActionInvoked`...), in the order they came.
    func named(_ member: String) -> [BusMonitor.Message] {
        filter { $0.member == member }
    }

    /// The messages about notification `id`: their first number is it.
    func about(_ id: UInt32) -> [BusMonitor.Message] {
        filter { $0.firstUInt32 == id }
    }
}
