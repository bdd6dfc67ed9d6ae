import DBus
import Logging
import PushCore

/// The tray item: a StatusNotifierItem with the unread count drawn on its icon, and the inbox
/// in its menu (com.canonical.dbusmenu), on the daemon's own connection.
///
/// The daemon hands it the whole state with `show` whenever it changes, and acts on what comes
/// out of `requests` (a chosen notice, "Mark all read", a snooze, a primary click): the tray
/// never calls into anything else. It registers with the StatusNotifierWatcher that is on the
/// bus, and again with each one that appears (a panel restarted), so it is shown for as long as
/// a tray host runs. For `tray = off` the daemon starts none, and the bus is left alone.
public final class Tray: Sendable {
    public struct Options: Sendable {
        /// `auto` or `on`: `on` logs a warning while no watcher is on the bus.
        public var mode: Config.Tray
        /// How the count is drawn on the icon; nil draws no count, and hosts show the icon by
        /// name alone.
        public var drawing: IconDrawing?
        /// `IconThemePath`: a directory with `hicolor/...` for an icon installed outside the
        /// icon theme's directories; "" for an installed one.
        public var iconThemePath: String
        /// Checked before a host's click or menu event does anything (it may open something or
        /// mark notices read); throws the error the caller is answered with. nil admits every
        /// caller.
        public var admit: (@Sendable (DBusMethodCall) async throws -> Void)?

        public init(
            mode: Config.Tray, drawing: IconDrawing?, iconThemePath: String = "",
            admit: (@Sendable (DBusMethodCall) async throws -> Void)? = nil
        ) {
            self.mode = mode
            self.drawing = drawing
            self.iconThemePath = iconThemePath
            self.admit = admit
        }
    }

    /// The count drawn on the icon by another process: `gbnotifyctl draw-tray-icon SVG COUNT`,
    /// run anew for each new count, which writes the pixmaps (`TrayPixmap`) and exits. The
    /// drawing libraries (librsvg, cairo) are its memory for a moment, never the daemon's.
    public struct IconDrawing: Sendable {
        /// The `gbnotifyctl` that draws (a path, or a name looked up in `PATH`).
        public var program: String
        /// The SVG the count is drawn on (the installed icon's file).
        public var svgFile: String

        public init(program: String, svgFile: String) {
            self.program = program
            self.svgFile = svgFile
        }
    }

    static let watcherName = "org.kde.StatusNotifierWatcher"
    static let watcherPath = "/StatusNotifierWatcher"

    /// What the user asked for, in order; ends at `stop()`.
    public let requests: AsyncStream<TrayRequest>
    private let core: TrayCore
    private let continuation: AsyncStream<TrayRequest>.Continuation
    private let follower: Task<Void, Never>

    private init(
        requests: AsyncStream<TrayRequest>, continuation: AsyncStream<TrayRequest>.Continuation, core: TrayCore,
        follower: Task<Void, Never>
    ) {
        self.requests = requests
        self.continuation = continuation
        self.core = core
        self.follower = follower
    }

    /// Exports the item and its menu on `connection` and registers with the watcher, now and
    /// whenever one appears. Throws when the objects cannot be exported (exported twice on one
    /// connection, or the connection closed); a watcher that refuses is logged, not thrown.
    public static func start(on connection: DBusConnection, options: Options, logger: Logger) async throws -> Tray {
        let (requests, continuation) = AsyncStream.makeStream(of: TrayRequest.self, bufferingPolicy: .bufferingNewest(64))
        let core = TrayCore(
            connection: connection, drawing: options.drawing, iconThemePath: options.iconThemePath, requests: continuation,
            logger: logger)
        await core.show(TrayState())
        let admit = options.admit ?? { _ in }
        try await StatusNotifierItem.export(on: connection, core: core, admit: admit)
        try await DBusMenu.export(on: connection, core: core, admit: admit)
        let watchers = try await connection.watchNameOwner(watcherName)
        // A connection made again has a new unique name: the watcher must hear it. Fed by the
        // connection's reconnection, on the loop's thread; only the latest one matters.
        let (reconnected, reconnection) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        connection.whenReconnected { _ in reconnection.yield() }
        let follower = Task {
            await withDiscardingTaskGroup { group in
                group.addTask { await follow(watchers, on: connection, mode: options.mode, logger: logger) }
                group.addTask {
                    for await _ in reconnected {
                        guard let owner = try? await connection.nameOwner(watcherName) else { continue }
                        await register(with: owner, on: connection, logger: logger)
                    }
                }
            }
        }
        return Tray(requests: requests, continuation: continuation, core: core, follower: follower)
    }

    /// The state to show now; returns once the signals for what changed are sent.
    public func show(_ state: TrayState) async {
        await core.show(state)
    }

    /// Stops following watchers and ends `requests`. The objects stay exported until the
    /// connection closes (the daemon's stop): hosts drop the item when its sender leaves.
    public func stop() {
        follower.cancel()
        continuation.finish()
    }

    private static func follow(_ watchers: AsyncStream<String?>, on connection: DBusConnection, mode: Config.Tray, logger: Logger) async {
        for await owner in watchers {
            guard let owner else {
                let message = "no tray host (nothing owns \(watcherName)): the tray item shows once one starts"
                if mode == .on { logger.warning(message) } else { logger.info(message) }
                continue
            }
            await register(with: owner, on: connection, logger: logger)
        }
    }

    private static func register(with owner: String, on connection: DBusConnection, logger: Logger) async {
        do {
            // Our unique name: every host takes the item at /StatusNotifierItem under it.
            _ = try await connection.call(
                destination: owner, path: watcherPath, interface: watcherName, member: "RegisterStatusNotifierItem",
                arguments: [.string(connection.uniqueName)], timeout: .seconds(10))
            logger.info("the tray item is registered with \(owner), the tray host's watcher")
        } catch {
            logger.warning("the tray host's watcher \(owner) did not take the tray item: \(error)")
        }
    }
}
