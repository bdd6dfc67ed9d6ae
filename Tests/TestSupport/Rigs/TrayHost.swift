import Foundation

/// The tray host of a session started with a tray (`DesktopSession.start(tray:)`), read and
/// driven through its own code and real input:
///
/// - Plasma 5.27's system tray (plasmashell, on kwin_x11): each item it shows in the panel is a
///   push button on AT-SPI named by the item's title; its menu is libdbusmenu-qt's QMenu,
///   opened with a real right click and chosen from with the keyboard.
/// - Xfce's panel 4.18 with its Status Tray (systray) plugin: the plugin runs in its own
///   wrapper process, whose widgets AT-SPI does not reach, so an item is found by the pixels
///   it draws in the panel's first slot (top left); its menu is libdbusmenu-gtk's GtkMenu,
///   opened with a real right click and chosen from with the keyboard.
/// - GNOME Shell 43 with the AppIndicator extension: each item is an actor in the top bar
///   (`Main.panel.statusArea`), read with `Eval`; its menu is the extension's PopupMenu, built
///   from the item's dbusmenu, opened by a real click, and an item is chosen by its own
///   `activate`, with a button release, as a click runs it.
public struct TrayHost: Sendable {
    public let session: DesktopSession

    public init(_ session: DesktopSession) {
        self.session = session
    }

    /// An item as the host shows it.
    public struct Item: Sendable, Equatable {
        /// The title as the host holds it (Plasma: the button's accessible name; GNOME: the
        /// indicator's); nil on Xfce, whose plugin AT-SPI does not reach.
        public let title: String?
        /// The host's status for it, where the host says (GNOME); nil elsewhere.
        public let status: String?
        /// Where the host draws it.
        public let area: ScreenArea
    }

    /// Xfce's panel runs along the top, 32 px high, the Status Tray its only plugin: its first
    /// item is drawn in the panel's first square (`scripts/desktop-servers/xfce4-notifyd.sh`).
    public static let xfceFirstSlot = ScreenArea(x: 0, y: 0, width: 32, height: 32)

    /// The item of `service` (the unique name it registered) as the host shows it, once it
    /// does, within `timeout`; with `title`, once the host shows that title. On Xfce, once the
    /// watcher holds it and its slot shows `colour` (#RRGGBB, a flat fill of its icon).
    public func waitForItem(
        of service: String, titled title: String? = nil, colour: String = "#2F5D8A", timeout: Duration = .seconds(120)
    ) async throws -> Item {
        try await TrayWatcher(session).waitForItem(of: service, timeout: timeout)
        return try await poll("the item of \(service)\(title.map { " titled \($0)" } ?? "") shown", timeout: timeout) {
            guard let item = try await item(of: service, titled: title, colour: colour) else { return nil }
            return title == nil || item.title == title ? item : nil
        }
    }

    /// Waits until the host shows no item of `service` (gone, or hidden as Passive); on
    /// Plasma, no item titled `title` in the panel.
    public func waitUntilNotShown(
        _ service: String, titled title: String? = nil, colour: String = "#2F5D8A", timeout: Duration = .seconds(120)
    ) async throws {
        _ = try await poll("the item of \(service) hidden", timeout: timeout) {
            try await item(of: service, titled: title, colour: colour) == nil ? true : nil
        }
    }

    /// Waits until the host has taken away the item of `service`, gone from the watcher, which
    /// last had the title `title`, so that the next item is not read beside it (on Plasma by the
    /// same title) or where the panel then moves it: Plasma by no button of that title, GNOME by
    /// no indicator of the service; Xfce's panel is the watcher, and takes its item away as it
    /// drops it.
    public func waitUntilDropped(_ service: String, titled title: String, timeout: Duration = .seconds(120)) async throws {
        switch session.server {
        case .plasma:
            _ = try await poll("the button titled \(title) taken away", timeout: timeout) {
                try await onScreen(["buttons", "plasmashell"]).contains { $0.name == title } ? nil : true
            }
        case .gnomeShell:
            try await waitUntilNotShown(service, timeout: timeout)
        default:
            break
        }
    }

    /// The item of `service` now, nil when the host shows none. On Plasma, where AT-SPI names
    /// an item's button by its title alone, the item is the button titled `title`.
    public func item(of service: String, titled title: String? = nil, colour: String = "#2F5D8A") async throws -> Item? {
        switch session.server {
        case .plasma:
            guard let title else { throw DesktopSession.Failure(description: "on Plasma an item is found by its title") }
            guard try await TrayWatcher(session).registeredItems().contains(where: { TrayWatcher.names($0, service) }) else { return nil }
            let buttons = try await onScreen(["buttons", "plasmashell"])
            return buttons.first { $0.name == title }.map { Item(title: $0.name, status: nil, area: $0.area) }
        case .gnomeShell:
            return try await gnomeItem(of: service)
        default:
            guard try await TrayWatcher(session).registeredItems().contains(where: { TrayWatcher.names($0, service) }) else { return nil }
            let colours = try await session.colours(in: Self.xfceFirstSlot)
            guard colours[colour, default: 0] > 0 else { return nil }
            return Item(title: nil, status: nil, area: Self.xfceFirstSlot)
        }
    }

    /// Opens the item's menu as a user does, with a real click (the host then asks for the
    /// layout, `AboutToShow` and `GetLayout`): the right button on X11; the left one on GNOME,
    /// where the AppIndicator extension opens the menu on a single click and sends
    /// `Activate` on a double one.
    public func openMenu(of item: Item, service: String) async throws {
        switch session.server {
        case .gnomeShell:
            let isOpen = "\(Self.indicatorJS(service)).menu.isOpen"
            let open: Bool = try await evalJSON(isOpen)
            guard !open else { return }
            // The extension opens the menu on a primary click only once it has built the menu's
            // items from the item's layout, which it fetches after it shows the item: a click
            // before that is dropped, and the menu never opens (seen on GNOME 48 under load).
            _ = try await poll("the menu of \(service) built", timeout: .seconds(60)) {
                let built: Bool = try await evalJSON("\(Self.indicatorJS(service)).menu.numMenuItems > 0")
                return built ? true : nil
            }
            // Where it is now: the panel moves its items as others come and go.
            let now = try await self.item(of: service) ?? item
            try await GnomeShell(session).pointerClick(at: now.area.center)
            _ = try await poll("the menu of \(service) open", timeout: .seconds(60)) {
                let open: Bool = try await evalJSON(isOpen)
                return open ? true : nil
            }
        default:
            // The last menu gone first, so that the one `choose` waits for is this one.
            _ = try await poll("no menu of the host shown", timeout: .seconds(60)) { try await x11MenuShown() ? nil : true }
            // The pointer comes onto the item from elsewhere, as a hand's does, to where it is
            // now: the last test's click left the pointer where this item may have been drawn
            // since, and a right click there without a motion reached no item on Plasma 6.3
            // under load (the host never asked for the menu).
            try await session.runChecked(["xdotool", "mousemove", "640", "400"])
            let point = (try await self.item(of: service, titled: item.title) ?? item).area.center
            try await session.runChecked(["xdotool", "mousemove", String(point.x), String(point.y)])
            try await session.runChecked(["xdotool", "click", "3"])
            // Mapped, or the failure says the click opened nothing (not, later, that some
            // pixels never changed). `choose` relies on it too: the menu takes the keyboard as it
            // is mapped (Qt and GTK grab it right after they map it), and a key sent before goes
            // elsewhere; a fixed half second lost the first Down under load, and Plasma 6.3's
            // menu chose the item above the one asked for.
            _ = try await poll("the menu of \(service) shown after a right click at \(point.x),\(point.y)", timeout: .seconds(60)) {
                try await x11MenuShown() ? true : nil
            }
        }
    }

    /// Whether an X11 host's menu is mapped now: Qt's QMenu (Plasma) and GTK's GtkMenu (Xfce)
    /// are top-level windows of type `_NET_WM_WINDOW_TYPE_POPUP_MENU`.
    private func x11MenuShown() async throws -> Bool {
        let shown = try await session.runChecked(["sh", "-c", """
            for window in $(xdotool search --maxdepth 1 --onlyvisible --name ''); do
                # A window gone meanwhile is no menu.
                if xprop -id "$window" _NET_WM_WINDOW_TYPE 2>/dev/null | grep -q _NET_WM_WINDOW_TYPE_POPUP_MENU; then
                    echo "$window"
                fi
            done
            """])
        return !shown.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
    }

    /// The labels of the open menu's items as the host shows them (GNOME only: the X11 hosts'
    /// menus are not on AT-SPI), once at least `count` of them say something: the extension
    /// adds an item before it sets its label.
    public func menuLabels(of service: String, atLeast count: Int, timeout: Duration = .seconds(60)) async throws -> [String] {
        try await poll("the menu of \(service) with \(count) items", timeout: timeout) {
            let labels: [String] = try await evalJSON("""
                \(Self.indicatorJS(service)).menu._getMenuItems().filter(item => item.label).map(item => item.label.text)
                """)
            return labels.count { !$0.isEmpty } >= count ? labels : nil
        }
    }

    /// Closes the open menu (GNOME: its own `close`), for the next test.
    public func closeMenu(service: String) async throws {
        switch session.server {
        case .gnomeShell:
            _ = try await GnomeShell(session).eval("\(Self.indicatorJS(service)).menu.close()")
        default:
            try await session.runChecked(["xdotool", "key", "Escape"])
        }
    }

    /// Waits until the host holds `status` for the item (GNOME, the one host that says).
    public func waitForStatus(_ status: String, of service: String, timeout: Duration = .seconds(60)) async throws {
        _ = try await poll("the item of \(service) \(status)", timeout: timeout) {
            try await item(of: service)?.status == status ? true : nil
        }
    }

    /// Chooses an item of the open menu as a user does: on X11 the keyboard (Down `position`
    /// times, which skips separators and disabled items, then Return); on GNOME the menu item
    /// labelled `label`, activated as a click on it is.
    public func choose(position: Int, label: String, service: String) async throws {
        switch session.server {
        case .gnomeShell:
            // The extension fills the menu in from GetLayout once it opens: the item is chosen
            // once it is there, by its own `activate` with a button release, as a click runs
            // it. (A pointer click lands wherever the menu is on that frame, sometimes still
            // settling, and so now and then on no item.) GNOME 48's Clutter makes no events from
            // JavaScript: there the rig does what the extension's activate handler does with
            // the release's time (an activation token, then "clicked" to the item), and closes
            // the menu, as the item's activate would.
            _ = try await poll("the menu item \(label)", timeout: .seconds(60)) {
                let chosen: Bool = try await evalJSON("""
                    (() => {
                        const item = \(Self.indicatorJS(service)).menu._getMenuItems()
                            .find(item => item.label && item.label.text === \(try ShellProbe.javaScript(label)));
                        if (!item) return false;
                        const Clutter = gbnotifyTest.Clutter, GLib = gbnotifyTest.GLib;
                        const time = Math.floor(GLib.get_monotonic_time() / 1000) % 0x100000000;
                        if (typeof Clutter.Event.new === 'function') {
                            const release = Clutter.Event.new(Clutter.EventType.BUTTON_RELEASE);
                            release.set_time(time);
                            item.activate(release);
                        } else {
                            item._dbusClient.indicator?.provideActivationToken(time);
                            item._dbusItem.handleEvent('clicked', GLib.Variant.new('i', 0), time);
                            item._getTopMenu().close();
                        }
                        return true;
                    })()
                    """)
                return chosen ? true : nil
            }
        default:
            // The menu is mapped, and has the keyboard: `openMenu` waited for its window.
            try await session.runChecked(["xdotool"] + Array(repeating: ["key", "Down"], count: position).flatMap { $0 } + ["key", "Return"])
        }
    }

    /// The host goes away and comes back, as after a crash and a restart: Plasma's plasmashell
    /// (the watcher, kded5's, stays); Xfce's panel, which is the watcher too; GNOME's
    /// AppIndicator extension, disabled and enabled again, its watcher with it.
    public func restart() async throws {
        switch session.server {
        case .plasma:
            try await session.kill(owner: "org.kde.plasmashell")
            try await startInBackground("plasmashell")
        case .gnomeShell:
            _ = try await GnomeShell(session).eval("""
                (() => { const m = gbnotifyTest.main.extensionManager; m.disableExtension('\(Self.appIndicator)');
                         m.enableExtension('\(Self.appIndicator)'); })()
                """)
        default:
            try await session.kill(owner: TrayWatcher.name)
            try await startInBackground("xfce4-panel")
        }
    }

    /// Only the watcher goes away and a new one comes (Plasma: kded5 killed, then started again
    /// by D-Bus activation, as plasmashell's next call to it would).
    public func restartWatcher() async throws {
        switch session.server {
        case .plasma:
            try await session.kill(owner: TrayWatcher.name)
            try await session.runChecked([
                "gdbus", "call", "--session", "--dest", "org.kde.kded5", "--object-path", "/kded",
                "--method", "org.kde.kded5.loadModule", "statusnotifierwatcher",
            ])
        default:
            try await restart()
        }
    }

    static let appIndicator = "ubuntu-appindicators@ubuntu.com"

    /// The AppIndicator extension's button for `service`'s item.
    static func indicatorJS(_ service: String) -> String {
        "gbnotifyTest.main.panel.statusArea['appindicator-\(service)@/StatusNotifierItem']"
    }

    private func gnomeItem(of service: String) async throws -> Item? {
        struct Found: Decodable {
            let title: String?
            let status: String?
            let area: ScreenArea
        }
        let found: Found? = try await evalJSON("""
            (() => {
                const button = \(Self.indicatorJS(service));
                if (!button || !button.visible || !button.container.visible) return null;
                const [x, y] = button.get_transformed_position();
                const [width, height] = button.get_transformed_size();
                // Not laid out yet: not on screen.
                if (![x, y, width, height].every(Number.isFinite) || width === 0 || height === 0) return null;
                const indicator = button._indicator;
                return {title: indicator.title, status: indicator.status,
                    area: {x: Math.round(x), y: Math.round(y), width: Math.round(width), height: Math.round(height)}};
            })()
            """)
        guard let found else { return nil }
        return Item(title: found.title, status: found.status, area: found.area)
    }

    /// What `javaScript` returns, as gnome-shell's `Eval` hands it back: JSON.
    private func evalJSON<Value: Decodable>(_ javaScript: String) async throws -> Value {
        try JSONDecoder().decode(Value.self, from: Data(try await GnomeShell(session).eval(javaScript).utf8))
    }

    private struct Button: Decodable {
        let name: String
        let area: ScreenArea
    }

    private func onScreen(_ arguments: [String]) async throws -> [Button] {
        let output = try await session.runChecked(["\(DesktopSession.serversDirectory)/on-screen"] + arguments)
        return try JSONDecoder().decode([Button].self, from: Data(output.utf8))
    }

    /// A program of the session (of its desktop's release) started in the background, its
    /// output in the session's log of that name; stopped with the session like everything
    /// carrying its environment.
    private func startInBackground(_ program: String) async throws {
        try await session.runChecked([
            "sh", "-c", "\"$0\" \(program) </dev/null >>\"$PRIVATE_DESKTOP_SESSION/logs/\(program).log\" 2>&1 &",
        ] + session.inDesktop([]))
    }

    /// The hosts say nothing when they have drawn an item, so the rig looks again every
    /// 100 ms until `body` has an answer (the watcher's signals mark only the registration).
    /// A wait that gives up says what the host was doing then (see `report`).
    private func poll<Result: Sendable>(
        _ what: String, timeout: Duration, _ body: @escaping @Sendable () async throws -> Result?
    ) async throws -> Result {
        do {
            return try await withDeadline(timeout, what) {
                while true {
                    if let result = try await body() { return result }
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
        } catch let timedOut as TimedOut {
            throw TimedOut(description: "\(timedOut.description); \(await report())")
        }
    }

    /// The host's state for a failure's message: whether its process still holds its bus name,
    /// and the end of its log (a host that died or hung says so there, not in the test).
    public func report() async -> String {
        let (name, log) = switch session.server {
        case .plasma: ("org.kde.plasmashell", "plasmashell")
        case .gnomeShell: ("org.gnome.Shell", "gnome-shell")
        default: (TrayWatcher.name, "xfce4-panel")
        }
        let owner = (try? await session.owner(of: name)).map { $0.map { "\($0.uniqueName), pid \($0.pid)" } ?? "none" } ?? "unknown"
        let tail = session.log(log).split(separator: "\n", omittingEmptySubsequences: false).suffix(20).joined(separator: "\n")
        return "owner of \(name): \(owner); the end of \(log).log:\n\(tail)"
    }
}
