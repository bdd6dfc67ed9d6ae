import DBus
import Logging
import MainLoop
import PushCore
import Spawn

/// The tray's one owner of state: the model, the drawn icon, and the host's activation token.
/// Both exported objects' handlers and `Tray.show` go through it, one at a time; it sends the
/// item's signals itself and hands requests on to the stream.
actor TrayCore {
    private let connection: DBusConnection
    private let drawing: Tray.IconDrawing?
    private let iconThemePath: String
    private let requests: AsyncStream<TrayRequest>.Continuation
    private let logger: Logger
    private var model = TrayModel()
    /// The icon drawn for `drawnCount`; drawn again when a host asks for the item after the
    /// count changed, so a desktop with no tray host never has it drawn at all.
    private var pixmaps: [TrayPixmap] = []
    private var drawnCount: String?
    /// The drawing under way, for the count it draws: hosts asking meanwhile wait for it.
    private var drawingNow: (count: String, task: Task<[TrayPixmap], Never>)?
    /// From `ProvideXdgActivationToken`, for the next request that opens something.
    private var activationToken: String?

    init(
        connection: DBusConnection, drawing: Tray.IconDrawing?, iconThemePath: String,
        requests: AsyncStream<TrayRequest>.Continuation, logger: Logger
    ) {
        self.connection = connection
        self.drawing = drawing
        self.iconThemePath = iconThemePath
        self.requests = requests
        self.logger = logger
    }

    // MARK: - From the daemon

    func show(_ state: TrayState) {
        send(model.show(state))
    }

    // MARK: - The item's properties

    func itemProperties() async -> [String: DBusValue] {
        let pixmaps = await currentPixmaps()
        // The pixmaps' drawing and the reply that carries them (about 70 KiB) are freed once it
        // is sent; their pages go back rather than stay the daemon's (issue 27's memory target).
        if !pixmaps.isEmpty { MainLoop.shared.trimHeapSoon() }
        let looks = model.looks
        let pixmapValue = DBusValue.array(
            elementSignature: "(iiay)",
            pixmaps.map { .struct([.int32(Int32($0.size)), .int32(Int32($0.size)), .bytes($0.argb)]) })
        // Hosts draw IconName when they find it in a theme and ignore the pixmaps, so the
        // name is given only while there is no count to draw.
        let iconName = pixmaps.isEmpty || looks.countText.isEmpty ? StatusNotifierItem.iconName : ""
        return [
            "Id": .string(StatusNotifierItem.id),
            "Category": .string("Communications"),
            "Title": .string(looks.title),
            "Status": .string(looks.status.rawValue),
            "WindowId": .int32(0),
            "IconThemePath": .string(iconThemePath),
            "IconName": .string(iconName),
            "IconPixmap": pixmapValue,
            "AttentionIconName": .string(iconName),
            "AttentionIconPixmap": pixmapValue,
            "OverlayIconName": .string(""),
            "OverlayIconPixmap": .array(elementSignature: "(iiay)", []),
            "AttentionMovieName": .string(""),
            "ToolTip": .struct([
                .string(StatusNotifierItem.iconName), .array(elementSignature: "(iiay)", []), .string(looks.title),
                .string(looks.toolTipBody),
            ]),
            "ItemIsMenu": .bool(false),
            "Menu": .objectPath(DBusMenu.path),
        ]
    }

    // MARK: - What the host does

    func activated() {
        requests.yield(.openInbox(activationToken: takeToken()))
    }

    func provide(activationToken token: String) {
        // Bounded: a token is a short string, and a peer may send anything.
        activationToken = token.utf8.count <= 4096 ? token : nil
    }

    /// The menu built anew from the state, for `GetLayout`.
    func layout() -> TrayMenu {
        model.layout()
    }

    /// The menu the host was given last, for questions about its items.
    func shownLayout() -> TrayMenu {
        model.lastLayout ?? model.layout()
    }

    /// `AboutToShow` (or one id of `AboutToShowGroup`): true when the host's copy of the menu
    /// is older than what it would show. `opening` says the host opens the root menu now.
    ///
    /// Hosts say that they open the menu in different ways: libdbusmenu-qt (Plasma) and the
    /// AppIndicator extension (GNOME) send the root's `opened` event, libdbusmenu-gtk (Xfce's
    /// panel) only `AboutToShowGroup([0])`. A lone `AboutToShow(0)` says nothing: the extension
    /// sends one as soon as it sets the menu up, long before anyone opens it.
    func aboutToShow(_ id: Int32, opening: Bool = false) -> Bool {
        if opening, id == 0 { send(model.menuOpened()) }
        return model.lastLayout?.revision != model.revision
    }

    /// One `Event`: true when the id is an item of the menu the host was given.
    @discardableResult
    func event(_ id: Int32, _ name: String) -> Bool {
        switch name {
        case "clicked":
            guard let item = model.lastLayout?.item(id: id) else { return false }
            guard item.isEnabled, let action = item.action else { return true }
            requests.yield(action.request(activationToken: takeToken()))
        case "opened" where id == 0:
            send(model.menuOpened())
        default:
            break
        }
        return id == 0 || model.lastLayout?.item(id: id) != nil
    }

    // MARK: - Internals

    private func takeToken() -> String? {
        defer { activationToken = nil }
        return activationToken
    }

    /// The pixmaps of the current count, drawn by `drawing`'s program unless they are at hand.
    /// A host that asks while the count changes gets the count its drawing began with; the
    /// `NewIcon` of the change makes it ask again.
    private func currentPixmaps() async -> [TrayPixmap] {
        guard let drawing else { return [] }
        let count = model.looks.countText
        if drawnCount == count { return pixmaps }
        let task: Task<[TrayPixmap], Never>
        if let drawingNow, drawingNow.count == count {
            task = drawingNow.task
        } else {
            let logger = logger
            task = Task {
                do {
                    return try await Self.draw(count, with: drawing)
                } catch {
                    logger.warning("the tray shows its icon without the count: \(error)")
                    return []
                }
            }
            drawingNow = (count, task)
        }
        let drawn = await task.value
        if drawingNow?.count == count { drawingNow = nil }
        if model.looks.countText == count {
            pixmaps = drawn
            drawnCount = count
        }
        return drawn
    }

    private static func draw(_ count: String, with drawing: Tray.IconDrawing) async throws -> [TrayPixmap] {
        let outcome = try await ChildProcess.run(
            [drawing.program, "draw-tray-icon", drawing.svgFile, count], stdoutLimit: TrayPixmap.encodedSize, stderrLimit: 1024,
            deadline: drawingDeadline)
        guard outcome.termination == .exited(0), !outcome.stdoutOverflowed else {
            let said = String(decoding: outcome.stderr, as: UTF8.self).displaySafe(truncatedTo: 300)
            throw DrawingFailure(description: "\(drawing.program) draw-tray-icon: \(outcome.termination)\(said.isEmpty ? "" : ": \(said)")")
        }
        return try TrayPixmap.decode(outcome.stdout)
    }

    /// Drawing takes a few milliseconds; one that hangs is killed here.
    static let drawingDeadline = Duration.seconds(10)

    struct DrawingFailure: Error, CustomStringConvertible {
        let description: String
    }

    private func send(_ changes: TrayModel.Changes) {
        var signals: [(path: String, interface: String, member: String, arguments: [DBusValue])] = []
        let item = StatusNotifierItem.self
        if changes.contains(.title) { signals.append((item.path, item.interface, "NewTitle", [])) }
        if changes.contains(.toolTip) { signals.append((item.path, item.interface, "NewToolTip", [])) }
        if changes.contains(.icon) {
            signals.append((item.path, item.interface, "NewIcon", []))
            signals.append((item.path, item.interface, "NewAttentionIcon", []))
        }
        if changes.contains(.status) {
            signals.append((item.path, item.interface, "NewStatus", [.string(model.looks.status.rawValue)]))
        }
        if changes.contains(.layout) {
            signals.append((DBusMenu.path, DBusMenu.interface, "LayoutUpdated", [.uint32(model.revision), .int32(0)]))
        }
        for signal in signals {
            do {
                try connection.emitSignal(
                    path: signal.path, interface: signal.interface, member: signal.member, arguments: signal.arguments)
            } catch {
                logger.warning("cannot send the tray's \(signal.member): \(error)")
            }
        }
    }
}
