import DBus
import Foundation
import Glibc
import Synchronization

/// KDE Plasma 5.27 in a `DesktopSession`, read and clicked through its own code: the probe
/// applet the session adds to plasmashell (`scripts/desktop-servers/plasma/`) answers with
/// plasmashell's notification model (what the notifications applet shows, history included)
/// and the launcher badges it keeps, and invokes actions as a click on a popup does. Popups on
/// screen, and real pointer clicks on them, are `OnScreen`'s.
///
/// plasmashell itself owns `org.freedesktop.Notifications`: a Notify returns once the model
/// holds the notification. A popup expires after about 5 s with NotificationClosed(id, 1) and
/// stays in the model as `expired`; wait for that signal rather than for time.
public struct PlasmaShell: Sendable {
    public let session: DesktopSession
    private let probe: Probe

    public init(_ session: DesktopSession) {
        precondition(session.server == .plasma, "a \(session.server) session is not Plasma")
        self.session = session
        probe = Probe(directory: "\(session.runtimeDirectory)/gbnotify-probe")
    }

    /// One notification of plasmashell's model.
    public struct Notification: Sendable, Decodable, Equatable {
        public typealias Action = NotificationAction

        /// The server id Notify returned.
        public let id: UInt32
        /// The application name as Plasma shows it (the desktop entry's Name when it resolved).
        public let appName: String
        public let appIcon: String?
        /// The notification's own icon, when app_icon names one of the icon theme.
        public let icon: String?
        /// An image is shown for it: app_icon named a file (its URI or path), or image-data.
        public let hasImage: Bool
        public let desktopEntry: String?
        /// The `x-kde-origin-name` hint.
        public let originName: String?
        public let title: String
        /// The body as Qt's rich text renders it, as plain text.
        public let body: String
        /// The body as plasmashell keeps it, after its own sanitising (an XHTML fragment).
        public let bodyMarkup: String
        /// Its actions: `default` (a click on the popup, no button) first when it has one.
        /// Empty once expired: Plasma drops the buttons of what went to its history.
        public let actions: [Action]
        /// 1 low, 2 normal, 4 critical (Plasma's flags, not the spec's numbers).
        public let urgency: Int
        public let timeout: Int
        /// Its popup timed out: in the history, without actions.
        public let expired: Bool
        public let dismissed: Bool
        public let read: Bool
        public let resident: Bool
        public let transient: Bool
        /// It has the inline-reply action: the popup shows a text field, with this placeholder
        /// and submit label.
        public let hasReplyAction: Bool
        public let replyPlaceholder: String?
        public let replySubmitLabel: String?
        /// Milliseconds since 1970, as plasmashell's clock saw them.
        public let created: Int64?
        public let updated: Int64?
    }

    /// A launcher's badge as plasmashell's task manager holds it (from com.canonical.Unity's
    /// LauncherEntry signals); all zero and false for an application it has no entry for.
    public struct Badge: Sendable, Decodable, Equatable {
        public let count: Int
        public let countVisible: Bool
        public let progress: Int
        public let progressVisible: Bool
        public let urgent: Bool
    }

    /// Every notification plasmashell holds, popups and history, oldest first.
    public func notifications() async throws -> [Notification] {
        struct Answer: Decodable { let notifications: [Notification] }
        return try await probe.ask("notifications", as: Answer.self).notifications
    }

    /// What a click on the popup runs (its default action, then the popup closes unless
    /// resident): ActionInvoked "default", and on X11 an ActivationToken first.
    public func activate(_ id: UInt32) async throws {
        try await probe.ask("activate", ["id": .number(Double(id))])
    }

    /// What a click on the popup's action button runs: ActionInvoked `key`.
    public func invokeAction(_ key: String, on id: UInt32) async throws {
        try await probe.ask("invokeAction", ["id": .number(Double(id)), "action": .string(key)])
    }

    /// What the popup's text field runs when `text` is typed into it and sent (the model's
    /// `reply`): `NotificationReplied(id, text)` to the notification's sender.
    public func replyInline(_ text: String, on id: UInt32) async throws {
        try await probe.ask("replyInline", ["id": .number(Double(id)), "text": .string(text)])
    }

    /// `org.kde.NotificationManager.InvokeAction`, Plasma's own D-Bus call for it: ActionInvoked
    /// only, no ActivationToken.
    public func managerInvokeAction(_ key: String, on id: UInt32) async throws {
        _ = try await session.withConnection { connection in
            try await connection.call(
                destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
                interface: "org.kde.NotificationManager", member: "InvokeAction", arguments: [.uint32(id), .string(key)])
        }
    }

    /// The badge plasmashell holds for the application of `desktopEntry` (`gbnotify`, without
    /// `.desktop`): the entry must be installed (`DesktopSession.start(dataDirectory:)`).
    public func badge(for desktopEntry: String) async throws -> Badge {
        struct Answer: Decodable { let badge: Badge }
        return try await probe.ask("badge", ["launcher": .string("applications:\(desktopEntry).desktop")], as: Answer.self).badge
    }
}

extension PlasmaShell {
    /// The request and answer FIFOs of the probe applet: one JSON line in, one JSON object out,
    /// one exchange at a time (the lock is held across it, on a thread of its own).
    final class Probe: Sendable {
        enum Field: Sendable, Encodable {
            case number(Double)
            case string(String)

            func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                switch self {
                case .number(let value): try container.encode(value)
                case .string(let value): try container.encode(value)
                }
            }
        }

        /// Far more than an answer takes (a tenth of a second), for a machine busy compiling.
        static let patience = Duration.seconds(120)

        private let directory: String
        /// The next sequence number, and the exchange lock.
        private let sequence = Mutex(1)

        init(directory: String) {
            self.directory = directory
        }

        func ask(_ op: String, _ fields: [String: Field] = [:]) async throws {
            _ = try await exchange(op, fields)
        }

        func ask<Answer: Decodable>(_ op: String, _ fields: [String: Field] = [:], as type: Answer.Type) async throws -> Answer {
            try JSONDecoder().decode(Answer.self, from: try await exchange(op, fields))
        }

        /// Sends one request and returns the answer's bytes; throws with the probe's error.
        private func exchange(_ op: String, _ fields: [String: Field]) async throws -> Data {
            let answer = try await offCooperativePool { [self] () throws -> Data in
                try sequence.withLock { next -> Data in
                    let seq = next
                    next += 1
                    var request = fields
                    request["op"] = .string(op)
                    request["seq"] = .number(Double(seq))
                    let line = try JSONEncoder().encode(request) + Data("\n".utf8)
                    return try Self.roundTrip(line, seq: seq, directory: directory)
                }
            }
            struct Status: Decodable { let error: String? }
            if let error = try JSONDecoder().decode(Status.self, from: answer).error {
                throw DesktopSession.Failure(description: "the Plasma probe: \(error)")
            }
            return answer
        }

        /// Opens the answer FIFO before writing the request, so the probe's writer never waits
        /// for a reader; skips any late answer to an earlier request.
        private static func roundTrip(_ line: Data, seq: Int, directory: String) throws -> Data {
            let deadline = ContinuousClock.now + Self.patience
            var reader = try Subprocess.openFile("\(directory)/responses", flags: O_RDONLY | O_NONBLOCK)
            defer { close(reader) }
            // Read-write: never blocks, and the line waits in the FIFO until the probe reads it.
            let writer = try Subprocess.openFile("\(directory)/requests", flags: O_RDWR)
            defer { close(writer) }
            let written = line.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) }
            guard written == line.count else {
                throw DesktopSession.Failure(description: "could not write to the Plasma probe: \(String(cString: strerror(errno)))")
            }
            while true {
                let answer = try readToEnd(reader, until: deadline)
                struct Sequence: Decodable { let seq: Int }
                if (try? JSONDecoder().decode(Sequence.self, from: answer))?.seq == seq { return answer }
                close(reader)
                reader = try Subprocess.openFile("\(directory)/responses", flags: O_RDONLY | O_NONBLOCK)
            }
        }

        /// Reads one writer's whole answer: until it closes its end.
        private static func readToEnd(_ descriptor: Int32, until deadline: ContinuousClock.Instant) throws -> Data {
            var collected = Data()
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let left = deadline - .now
                guard left > .zero else { throw TimedOut(description: "the Plasma probe did not answer within \(patience)") }
                var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                let milliseconds = Int32(left.components.seconds * 1000 + 1)
                guard poll(&request, 1, milliseconds) > 0 else { continue }
                let count = read(descriptor, &buffer, buffer.count)
                if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
                guard count > 0 else { return collected }
                collected += buffer[..<count]
            }
        }
    }
}
