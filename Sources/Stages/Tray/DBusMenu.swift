import DBus
import PushCore

/// `com.canonical.dbusmenu` at `/MenuBar`: the item's menu, built from the state only when a
/// host asks for it (`GetLayout`), one flat list under the root (id 0).
enum DBusMenu {
    static let path = "/MenuBar"
    static let interface = "com.canonical.dbusmenu"
    /// libdbusmenu's name for an event or a property asked of an item that is not there.
    static let unknownID = "com.canonical.dbusmenu.UnknownId"

    /// `admit` is asked first by what acts (`Event`, `EventGroup`, and the opening of the menu
    /// `AboutToShowGroup` says).
    static func export(
        on connection: DBusConnection, core: TrayCore, admit: @escaping @Sendable (DBusMethodCall) async throws -> Void
    ) async throws {
        try await connection.export(
            path: path, interface: interface, introspection: introspection,
            methods: [
                DBusMethod("GetLayout", input: "iias", output: "u(ia{sv}av)") { call in
                    let parent = call.arguments[0].int32Value ?? 0
                    let depth = call.arguments[1].int32Value ?? -1
                    let names = call.arguments[2].stringArrayValue ?? []
                    let menu = await core.layout()
                    if parent == 0 {
                        let children = depth == 0 ? [] : menu.items.map { DBusValue.variant(node($0, names)) }
                        let root = DBusValue.struct([
                            .int32(0), .vardict(["children-display": .string("submenu")]),
                            .array(elementSignature: "v", children),
                        ])
                        return [.uint32(menu.revision), root]
                    }
                    guard let item = menu.item(id: parent) else { throw unknown(parent) }
                    return [.uint32(menu.revision), node(item, names)]
                },
                DBusMethod("GetGroupProperties", input: "aias", output: "a(ia{sv})") { call in
                    let ids = Set(call.arguments[0].arrayValue?.compactMap(\.int32Value) ?? [])
                    let names = call.arguments[1].stringArrayValue ?? []
                    let menu = await core.shownLayout()
                    let items = menu.items.filter { ids.isEmpty || ids.contains($0.id) }
                    return [.array(elementSignature: "(ia{sv})", items.map { .struct([.int32($0.id), properties($0, names)]) })]
                },
                DBusMethod("GetProperty", input: "is", output: "v") { call in
                    let id = call.arguments[0].int32Value ?? 0
                    let name = call.arguments[1].stringValue ?? ""
                    guard let item = await core.shownLayout().item(id: id) else { throw unknown(id) }
                    guard let value = properties(item, [name]).vardictValue?[name] else {
                        throw DBusError(name: DBusError.Name.invalidArgs, message: "item \(id) has no property \(name.displaySafe)")
                    }
                    return [.variant(value)]
                },
                DBusMethod("Event", input: "isvu") { call in
                    try await admit(call)
                    let id = call.arguments[0].int32Value ?? 0
                    guard await core.event(id, call.arguments[1].stringValue ?? "") else { throw unknown(id) }
                    return []
                },
                DBusMethod("EventGroup", input: "a(isvu)", output: "ai") { call in
                    try await admit(call)
                    var errors: [DBusValue] = []
                    for event in call.arguments[0].arrayValue ?? [] {
                        let fields = event.structValue ?? []
                        let id = fields.first?.int32Value ?? 0
                        if await !core.event(id, fields.dropFirst().first?.stringValue ?? "") { errors.append(.int32(id)) }
                    }
                    return [.array(elementSignature: "i", errors)]
                },
                DBusMethod("AboutToShow", input: "i", output: "b") { call in
                    [.bool(await core.aboutToShow(call.arguments[0].int32Value ?? 0))]
                },
                DBusMethod("AboutToShowGroup", input: "ai", output: "aiai") { call in
                    // Opening the menu marks its notices seen and clears the item's attention:
                    // only a caller `Event` would admit does that. Any other is still answered.
                    let opening = (try? await admit(call)) != nil
                    var updates: [DBusValue] = []
                    for id in call.arguments[0].arrayValue?.compactMap(\.int32Value) ?? [] where await core.aboutToShow(id, opening: opening) {
                        updates.append(.int32(id))
                    }
                    return [.array(elementSignature: "i", updates), .array(elementSignature: "i", [])]
                },
            ])
        try await ReadOnlyProperties.export(on: connection, path: path, interface: interface) {
            [
                "Version": .uint32(3), "TextDirection": .string("ltr"), "Status": .string("normal"),
                "IconThemePath": .stringArray([]),
            ]
        }
    }

    private static func unknown(_ id: Int32) -> DBusError {
        DBusError(name: unknownID, message: "the menu has no item \(id)")
    }

    /// `(ia{sv}av)`: an item with no children.
    private static func node(_ item: TrayMenu.Item, _ names: [String]) -> DBusValue {
        .struct([.int32(item.id), properties(item, names), .array(elementSignature: "v", [])])
    }

    /// The item's properties, those in `names` alone when the host named some. `enabled` is
    /// sent even when true, its default: libdbusmenu-qt (Plasma) keeps the action of an id it
    /// knows across `GetLayout`s and sets only the properties it is sent, so an item enabled
    /// since ("Resume notifications" once snoozed) would stay greyed out.
    private static func properties(_ item: TrayMenu.Item, _ names: [String]) -> DBusValue {
        var all: [String: DBusValue] = [:]
        switch item.kind {
        case .separator:
            all["type"] = .string("separator")
        case .standard:
            all["label"] = .string(item.label)
            all["enabled"] = .bool(item.isEnabled)
        }
        return .vardict(names.isEmpty ? all : all.filter { names.contains($0.key) })
    }

    static let introspection = """
          <interface name="com.canonical.dbusmenu">
            <property name="Version" type="u" access="read"/>
            <property name="TextDirection" type="s" access="read"/>
            <property name="Status" type="s" access="read"/>
            <property name="IconThemePath" type="as" access="read"/>
            <method name="GetLayout"><arg name="parentId" type="i" direction="in"/><arg name="recursionDepth" type="i" direction="in"/><arg name="propertyNames" type="as" direction="in"/><arg name="revision" type="u" direction="out"/><arg name="layout" type="(ia{sv}av)" direction="out"/></method>
            <method name="GetGroupProperties"><arg name="ids" type="ai" direction="in"/><arg name="propertyNames" type="as" direction="in"/><arg name="properties" type="a(ia{sv})" direction="out"/></method>
            <method name="GetProperty"><arg name="id" type="i" direction="in"/><arg name="name" type="s" direction="in"/><arg name="value" type="v" direction="out"/></method>
            <method name="Event"><arg name="id" type="i" direction="in"/><arg name="eventId" type="s" direction="in"/><arg name="data" type="v" direction="in"/><arg name="timestamp" type="u" direction="in"/></method>
            <method name="EventGroup"><arg name="events" type="a(isvu)" direction="in"/><arg name="idErrors" type="ai" direction="out"/></method>
            <method name="AboutToShow"><arg name="id" type="i" direction="in"/><arg name="needUpdate" type="b" direction="out"/></method>
            <method name="AboutToShowGroup"><arg name="ids" type="ai" direction="in"/><arg name="updatesNeeded" type="ai" direction="out"/><arg name="idErrors" type="ai" direction="out"/></method>
            <signal name="ItemsPropertiesUpdated"><arg name="updatedProps" type="a(ia{sv})"/><arg name="removedProps" type="a(ias)"/></signal>
            <signal name="LayoutUpdated"><arg name="revision" type="u"/><arg name="parent" type="i"/></signal>
            <signal name="ItemActivationRequested"><arg name="id" type="i"/><arg name="timestamp" type="u"/></signal>
          </interface>
        """
}
