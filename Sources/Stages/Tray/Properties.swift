import DBus
import PushCore

/// `org.freedesktop.DBus.Properties` for one exported interface whose properties are all
/// read-only: `Get` and `GetAll` answer from `read`, `Set` is refused. Tray hosts read them
/// after each of the item's `New...` signals, so no `PropertiesChanged` is sent.
enum ReadOnlyProperties {
    static let interface = "org.freedesktop.DBus.Properties"
    static let unknownProperty = "org.freedesktop.DBus.Error.UnknownProperty"
    static let propertyReadOnly = "org.freedesktop.DBus.Error.PropertyReadOnly"

    static func export(
        on connection: DBusConnection, path: String, interface served: String,
        read: @escaping @Sendable () async -> [String: DBusValue]
    ) async throws {
        @Sendable func check(_ call: DBusMethodCall) throws {
            // An empty interface name means "any", as the specification allows.
            guard let asked = call.arguments.first?.stringValue, asked.isEmpty || asked == served else {
                throw DBusError(name: DBusError.Name.unknownInterface, message: "no such interface at \(path)")
            }
        }
        try await connection.export(
            path: path, interface: interface, introspection: introspection,
            methods: [
                DBusMethod("Get", input: "ss", output: "v") { call in
                    try check(call)
                    let name = call.arguments.last?.stringValue ?? ""
                    guard let value = await read()[name] else {
                        throw DBusError(name: unknownProperty, message: "no property \(name.displaySafe) on \(served)")
                    }
                    return [.variant(value)]
                },
                DBusMethod("GetAll", input: "s", output: "a{sv}") { call in
                    try check(call)
                    return [.vardict(await read())]
                },
                DBusMethod("Set", input: "ssv", output: "") { call in
                    try check(call)
                    throw DBusError(name: propertyReadOnly, message: "the properties of \(served) are read-only")
                },
            ])
    }

    static let introspection = """
          <interface name="org.freedesktop.DBus.Properties">
            <method name="Get"><arg name="interface_name" type="s" direction="in"/><arg name="property_name" type="s" direction="in"/><arg name="value" type="v" direction="out"/></method>
            <method name="GetAll"><arg name="interface_name" type="s" direction="in"/><arg name="properties" type="a{sv}" direction="out"/></method>
            <method name="Set"><arg name="interface_name" type="s" direction="in"/><arg name="property_name" type="s" direction="in"/><arg name="value" type="v" direction="in"/></method>
            <signal name="PropertiesChanged"><arg name="interface_name" type="s"/><arg name="changed_properties" type="a{sv}"/><arg name="invalidated_properties" type="as"/></signal>
          </interface>
        """
}
