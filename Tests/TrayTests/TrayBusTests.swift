import DBus
import DesktopSuites
import Foundation
import PushCore
import Synchronization
import TestSupport
import Testing
import Tray

/// The tray's objects as a plain client on the bus sees them, with no tray host at all: the
/// item's properties and pixmaps, the menu's layout, events and their requests, and what it
/// answers to calls no host makes.
@Suite(.serialized, .desktop(.dunst))
struct TrayBusTests {
    let session: DesktopSession

    init() throws {
        session = try SharedDesktop.session()
    }

    static let item = ("/StatusNotifierItem", "org.kde.StatusNotifierItem")
    static let menu = ("/MenuBar", "com.canonical.dbusmenu")

    func properties(_ tray: TrayOnDesktop, _ object: (String, String), on client: DBusConnection) async throws -> [String: DBusValue] {
        let reply = try await client.call(
            destination: tray.connection.uniqueName, path: object.0, interface: "org.freedesktop.DBus.Properties",
            member: "GetAll", arguments: [.string(object.1)])
        return try #require(reply.first?.vardictValue)
    }

    func call(_ tray: TrayOnDesktop, _ object: (String, String), _ member: String, _ arguments: [DBusValue], on client: DBusConnection) async throws -> [DBusValue] {
        try await client.call(
            destination: tray.connection.uniqueName, path: object.0, interface: object.1, member: member, arguments: arguments)
    }

    @Test func theItemsPropertiesSayWhatItIs() async throws {
        try await TrayOnDesktop.with(on: session) { tray in
            try await session.withConnection { client in
                await tray.tray.show(TrayOnDesktop.state(unread: 120, [TrayOnDesktop.row(3)]))
                let all = try await properties(tray, Self.item, on: client)
                #expect(all["Id"] == .string("gbnotify"))
                #expect(all["Category"] == .string("Communications"))
                #expect(all["Title"] == .string("120 unread on cmc@gitbay.org"))
                #expect(all["Status"] == .string("NeedsAttention"))
                #expect(all["Menu"] == .objectPath("/MenuBar"))
                #expect(all["ItemIsMenu"] == .bool(false))
                // A count to draw: no icon name, or hosts would draw the name and not the count.
                #expect(all["IconName"] == .string(""))
                let tip = try #require(all["ToolTip"]?.structValue)
                #expect(tip[2] == .string("120 unread on cmc@gitbay.org"))
                #expect(tip[3] == .string("krz/gitbay — ann opened issue #3"))

                await tray.tray.show(TrayOnDesktop.state(unread: 0, []))
                let none = try await properties(tray, Self.item, on: client)
                #expect(none["Status"] == .string("Passive"))
                #expect(none["IconName"] == .string("gbnotify"))
            }
        }
    }

    /// ARGB32 in network byte order at 22, 24, 32 and 48 px: alpha first, colour not
    /// premultiplied. The icon's corner is transparent, its middle-left edge the flat blue.
    @Test func thePixmapsAreNetworkOrderARGBAtEverySize() async throws {
        try await TrayOnDesktop.with(on: session) { tray in
            try await session.withConnection { client in
                await tray.tray.show(TrayOnDesktop.state(unread: 7, []))
                let pixmaps = try #require(try await properties(tray, Self.item, on: client)["IconPixmap"]?.arrayValue)
                #expect(pixmaps.count == 4)
                for (pixmap, size) in zip(pixmaps, [22, 24, 32, 48]) {
                    let fields = try #require(pixmap.structValue)
                    #expect(fields[0] == .int32(Int32(size)) && fields[1] == .int32(Int32(size)))
                    let bytes = (fields[2].arrayValue ?? []).compactMap(\.byteValue)
                    #expect(bytes.count == size * size * 4)
                    #expect(bytes[0] == 0, "the corner is transparent")
                    // Row at two thirds down, a tenth in from the left: inside the blue square,
                    // clear of the bell and the badge.
                    let offset = ((size * 2 / 3) * size + size / 10 + 1) * 4
                    #expect(Array(bytes[offset..<offset + 4]) == [0xff, 0x2f, 0x5d, 0x8a], "at \(size) px")
                }
            }
        }
    }

    @Test func theCountIsDrawnAndChangesThePixmaps() async throws {
        try await TrayOnDesktop.with(on: session) { tray in
            try await session.withConnection { client in
                func pixmaps() async throws -> DBusValue? { try await properties(tray, Self.item, on: client)["IconPixmap"] }
                await tray.tray.show(TrayOnDesktop.state(unread: 0, []))
                let bare = try await pixmaps()
                await tray.tray.show(TrayOnDesktop.state(unread: 7, []))
                let seven = try await pixmaps()
                await tray.tray.show(TrayOnDesktop.state(unread: 8, []))
                let eight = try await pixmaps()
                await tray.tray.show(TrayOnDesktop.state(unread: 150, []))
                let many = try await pixmaps()
                await tray.tray.show(TrayOnDesktop.state(unread: 250, []))
                #expect(Set([bare, seven, eight, many]).count == 4)
                // Past 99 it is "99+" whatever the count.
                #expect(try await pixmaps() == many)
            }
        }
    }

    @Test func theLayoutIsAFlatListWithLabelsAndSeparators() async throws {
        try await TrayOnDesktop.with(on: session) { tray in
            try await session.withConnection { client in
                await tray.tray.show(TrayOnDesktop.state(unread: 2, [TrayOnDesktop.row(12), TrayOnDesktop.row(11)]))
                let reply = try await call(tray, Self.menu, "GetLayout", [.int32(0), .int32(-1), .stringArray([])], on: client)
                let root = try #require(reply.last?.structValue)
                #expect(root[0] == .int32(0))
                let children = try #require(root[2].arrayValue?.compactMap { $0.variantValue?.structValue })
                let labels = children.map { child in
                    let properties = child[1].vardictValue ?? [:]
                    if properties["type"] == .string("separator") { return "--" }
                    return (properties["label"]?.stringValue ?? "?") + (properties["enabled"] == .bool(false) ? " (off)" : "")
                }
                #expect(labels == [
                    "krz/gitbay — ann opened issue #12", "krz/gitbay — ann opened issue #11", "Mark all read", "--",
                    "Snooze for 1 hour", "Snooze until tomorrow 08:00", "Resume notifications (off)", "--", "Open inbox",
                ])
                let menu = try await properties(tray, Self.menu, on: client)
                #expect(menu["Version"] == .uint32(3))
                #expect(menu["Status"] == .string("normal"))
            }
        }
    }

    /// A click on an item as a host sends it; an unknown id is refused with libdbusmenu's
    /// error, and asks for nothing.
    @Test func eventsBecomeRequestsAndUnknownIdsAreRefused() async throws {
        try await TrayOnDesktop.with(on: session) { tray in
            try await session.withConnection { client in
                await tray.tray.show(TrayOnDesktop.state(unread: 1, [TrayOnDesktop.row(12)]))
                let reply = try await call(tray, Self.menu, "GetLayout", [.int32(0), .int32(-1), .stringArray([])], on: client)
                let children = try #require(reply.last?.structValue?[2].arrayValue?.compactMap { $0.variantValue?.structValue })
                let first = try #require(children.first?[0])
                let click: [DBusValue] = [first, .string("clicked"), .variant(.int32(0)), .uint32(0)]
                _ = try await call(tray, Self.menu, "Event", click, on: client)
                #expect(try await tray.request(after: 0) == .open(
                    PushTarget(account: TrayOnDesktop.cmc, destination: NotificationDestination(path: "krz/gitbay/issues/12")),
                    activationToken: nil))
                await #expect(throws: DBusError.self) {
                    _ = try await call(tray, Self.menu, "Event", [.int32(9999), .string("clicked"), .variant(.int32(0)), .uint32(0)], on: client)
                }
                let errors = try await call(tray, Self.menu, "EventGroup", [.array(elementSignature: "(isvu)", [
                    .struct([.int32(9999), .string("clicked"), .variant(.int32(0)), .uint32(0)]),
                ])], on: client)
                #expect(errors == [.array(elementSignature: "i", [.int32(9999)])])
                #expect(tray.requests.count == 1)
            }
        }
    }

    /// Opening the menu (`AboutToShowGroup([0])`, as Xfce's panel says it) clears the item's
    /// attention, but only for a caller the tray admits, as `Event` checks: another one is
    /// answered and changes nothing, and the admitted host's own opening then clears it.
    @Test func onlyAnAdmittedCallerOpeningTheMenuClearsTheAttention() async throws {
        let admitted = Mutex<String?>(nil)
        let admit: @Sendable (DBusMethodCall) async throws -> Void = { call in
            guard admitted.withLock({ $0 }) == call.sender else {
                throw DBusError(name: DBusError.Name.accessDenied, message: "not the host")
            }
        }
        try await TrayOnDesktop.with(on: session, admit: admit) { tray in
            try await session.withConnection { stranger in
                try await session.withConnection { host in
                    admitted.withLock { $0 = host.uniqueName }
                    await tray.tray.show(TrayOnDesktop.state(unread: 7, [TrayOnDesktop.row(41), TrayOnDesktop.row(40)]))
                    _ = try await call(tray, Self.menu, "GetLayout", [.int32(0), .int32(-1), .stringArray([])], on: host)
                    let answer = try await call(tray, Self.menu, "AboutToShowGroup", [.array(elementSignature: "i", [.int32(0)])], on: stranger)
                    #expect(answer.count == 2)
                    #expect(try await properties(tray, Self.item, on: host)["Status"] == .string("NeedsAttention"))
                    await #expect(throws: DBusError.self) {
                        _ = try await call(tray, Self.menu, "Event", [.int32(0), .string("opened"), .variant(.int32(0)), .uint32(0)], on: stranger)
                    }
                    #expect(try await properties(tray, Self.item, on: host)["Status"] == .string("NeedsAttention"))
                    _ = try await call(tray, Self.menu, "AboutToShowGroup", [.array(elementSignature: "i", [.int32(0)])], on: host)
                    #expect(try await properties(tray, Self.item, on: host)["Status"] == .string("Active"))
                }
            }
        }
    }

    /// A primary click opens the inbox with the token the host provided just before.
    @Test func activateOpensTheInboxWithTheProvidedToken() async throws {
        try await TrayOnDesktop.with(on: session) { tray in
            try await session.withConnection { client in
                _ = try await call(tray, Self.item, "ProvideXdgActivationToken", [.string("token-1")], on: client)
                _ = try await call(tray, Self.item, "Activate", [.int32(10), .int32(10)], on: client)
                _ = try await call(tray, Self.item, "Activate", [.int32(10), .int32(10)], on: client)
                #expect(try await tray.request(after: 0) == .openInbox(activationToken: "token-1"))
                // A token serves one request.
                #expect(try await tray.request(after: 1) == .openInbox(activationToken: nil))
            }
        }
    }

    @Test func propertiesAreReadOnlyAndUnknownOnesAreNamed() async throws {
        try await TrayOnDesktop.with(on: session) { tray in
            try await session.withConnection { client in
                let properties = ("/StatusNotifierItem", "org.freedesktop.DBus.Properties")
                do {
                    _ = try await call(tray, properties, "Set", [.string("org.kde.StatusNotifierItem"), .string("Title"), .variant(.string("x"))], on: client)
                    Issue.record("Set was taken")
                } catch let error as DBusError {
                    #expect(error.name == "org.freedesktop.DBus.Error.PropertyReadOnly")
                }
                do {
                    _ = try await call(tray, properties, "Get", [.string("org.kde.StatusNotifierItem"), .string("Nope")], on: client)
                    Issue.record("Get of no property answered")
                } catch let error as DBusError {
                    #expect(error.name == "org.freedesktop.DBus.Error.UnknownProperty")
                }
                let title = try await call(tray, properties, "Get", [.string("org.kde.StatusNotifierItem"), .string("Title")], on: client)
                #expect(title == [.variant(.string("Nothing unread"))])
            }
        }
    }

    /// `tray = on` asks for a tray: with no watcher on the bus, that is a warning; `auto` only
    /// says so.
    @Test(arguments: [(Config.Tray.on, "<4>"), (.auto, "<6>")])
    func noWatcherIsLoggedAsTheModeSays(_ mode: Config.Tray, _ priority: String) async throws {
        let tray = try await TrayOnDesktop.start(on: session, mode: mode)
        defer { Task { await tray.stop() } }
        let line = try await withDeadline(.seconds(30), "the no-watcher line") {
            while true {
                if let line = tray.log.all.first(where: { $0.contains("no tray host") }) { return line }
                // The line comes once the owner watch has answered; nothing else tells when.
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        #expect(line.hasPrefix(priority))
    }
}
