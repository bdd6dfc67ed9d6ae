import DBus
import TestSupport
import Testing

/// The least a StatusNotifierItem can be, written out by hand on a connection of its own: a
/// title, a status and a flat green 22 px pixmap, registered with the session's watcher. What
/// the tray rigs are proven with, apart from gbnotify's own Tray module.
struct PlainTrayItem {
    static let title = "Plain rig item"
    /// #3FA34D, a flat fill the hosts keep at any size.
    static let colour = "#3FA34D"

    let connection: DBusConnection

    static func register(on session: DesktopSession) async throws -> PlainTrayItem {
        let connection = try await session.connect()
        let pixel: [DBusValue] = [.byte(0xff), .byte(0x3f), .byte(0xa3), .byte(0x4d)]
        let pixmap = DBusValue.struct([
            .int32(22), .int32(22), .array(elementSignature: "y", Array(repeating: pixel, count: 22 * 22).flatMap { $0 }),
        ])
        let properties: [String: DBusValue] = [
            "Id": .string("plain-rig-item"), "Category": .string("ApplicationStatus"), "Title": .string(title),
            "Status": .string("Active"), "IconName": .string(""), "IconPixmap": .array(elementSignature: "(iiay)", [pixmap]),
            "ToolTip": .struct([.string(""), .array(elementSignature: "(iiay)", []), .string(title), .string("")]),
            "ItemIsMenu": .bool(false),
        ]
        let ignored: @Sendable (DBusMethodCall) async throws -> [DBusValue] = { _ in [] }
        try await connection.export(
            path: "/StatusNotifierItem", interface: "org.kde.StatusNotifierItem",
            introspection: #"<interface name="org.kde.StatusNotifierItem"/>"#,
            methods: ["Activate", "SecondaryActivate", "ContextMenu"].map { DBusMethod($0, input: "ii", handler: ignored) })
        try await connection.export(
            path: "/StatusNotifierItem", interface: "org.freedesktop.DBus.Properties",
            introspection: #"<interface name="org.freedesktop.DBus.Properties"/>"#,
            methods: [
                DBusMethod("GetAll", input: "s", output: "a{sv}") { _ in [.vardict(properties)] },
                DBusMethod("Get", input: "ss", output: "v") { call in
                    guard let value = properties[call.arguments[1].stringValue ?? ""] else {
                        throw DBusError(name: "org.freedesktop.DBus.Error.UnknownProperty", message: "no such property")
                    }
                    return [.variant(value)]
                },
            ])
        let watcher = try #require(try await connection.nameOwner(TrayWatcher.name))
        _ = try await connection.call(
            destination: watcher, path: TrayWatcher.path, interface: TrayWatcher.name, member: "RegisterStatusNotifierItem",
            arguments: [.string(connection.uniqueName)])
        return PlainTrayItem(connection: connection)
    }
}
