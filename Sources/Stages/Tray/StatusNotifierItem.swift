import DBus

/// `org.kde.StatusNotifierItem` at `/StatusNotifierItem`: the item's properties and what a host
/// calls on it. A primary click (`Activate`) opens the inbox; the menu (`Menu`) holds the rest,
/// so `ContextMenu`, `SecondaryActivate` and `Scroll` do nothing.
enum StatusNotifierItem {
    static let path = "/StatusNotifierItem"
    static let interface = "org.kde.StatusNotifierItem"
    static let id = "gbnotify"
    /// The installed icon's name (`AppIcon.name`).
    static let iconName = "gbnotify"

    /// `admit` is asked first by what acts (`Activate`, `ProvideXdgActivationToken`).
    static func export(
        on connection: DBusConnection, core: TrayCore, admit: @escaping @Sendable (DBusMethodCall) async throws -> Void
    ) async throws {
        let ignored: @Sendable (DBusMethodCall) async throws -> [DBusValue] = { _ in [] }
        try await connection.export(
            path: path, interface: interface, introspection: introspection,
            methods: [
                DBusMethod("Activate", input: "ii") { call in
                    try await admit(call)
                    await core.activated()
                    return []
                },
                DBusMethod("SecondaryActivate", input: "ii", handler: ignored),
                DBusMethod("ContextMenu", input: "ii", handler: ignored),
                DBusMethod("Scroll", input: "is", handler: ignored),
                // Plasma sends one before Activate, for the window that the click brings up.
                DBusMethod("ProvideXdgActivationToken", input: "s") { call in
                    try await admit(call)
                    await core.provide(activationToken: call.arguments.first?.stringValue ?? "")
                    return []
                },
            ])
        try await ReadOnlyProperties.export(on: connection, path: path, interface: interface) {
            await core.itemProperties()
        }
    }

    static let introspection = """
          <interface name="org.kde.StatusNotifierItem">
            <property name="Category" type="s" access="read"/>
            <property name="Id" type="s" access="read"/>
            <property name="Title" type="s" access="read"/>
            <property name="Status" type="s" access="read"/>
            <property name="WindowId" type="i" access="read"/>
            <property name="IconThemePath" type="s" access="read"/>
            <property name="IconName" type="s" access="read"/>
            <property name="IconPixmap" type="a(iiay)" access="read"/>
            <property name="OverlayIconName" type="s" access="read"/>
            <property name="OverlayIconPixmap" type="a(iiay)" access="read"/>
            <property name="AttentionIconName" type="s" access="read"/>
            <property name="AttentionIconPixmap" type="a(iiay)" access="read"/>
            <property name="AttentionMovieName" type="s" access="read"/>
            <property name="ToolTip" type="(sa(iiay)ss)" access="read"/>
            <property name="ItemIsMenu" type="b" access="read"/>
            <property name="Menu" type="o" access="read"/>
            <method name="ContextMenu"><arg name="x" type="i" direction="in"/><arg name="y" type="i" direction="in"/></method>
            <method name="Activate"><arg name="x" type="i" direction="in"/><arg name="y" type="i" direction="in"/></method>
            <method name="SecondaryActivate"><arg name="x" type="i" direction="in"/><arg name="y" type="i" direction="in"/></method>
            <method name="Scroll"><arg name="delta" type="i" direction="in"/><arg name="orientation" type="s" direction="in"/></method>
            <method name="ProvideXdgActivationToken"><arg name="token" type="s" direction="in"/></method>
            <signal name="NewTitle"/>
            <signal name="NewIcon"/>
            <signal name="NewAttentionIcon"/>
            <signal name="NewOverlayIcon"/>
            <signal name="NewToolTip"/>
            <signal name="NewStatus"><arg name="status" type="s"/></signal>
          </interface>
        """
}
