internal import CGLib

/// What a watched descriptor is ready for.
public struct Readiness: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let readable = Readiness(rawValue: G_IO_IN.rawValue)
    public static let writable = Readiness(rawValue: G_IO_OUT.rawValue)
    public static let error = Readiness(rawValue: G_IO_ERR.rawValue)
    public static let hangUp = Readiness(rawValue: G_IO_HUP.rawValue)
}

/// One source on the main loop: a descriptor watched, or a timeout, calling its handler on the
/// loop's thread until cancelled (or, for a timeout, until the handler says it is done).
///
/// Made, used and cancelled on the loop's thread only, by the C libraries' wrappers (their
/// sockets and timers) and the terminal's input; not `Sendable`.
public final class LoopSource {
    private let source: UnsafeMutablePointer<GSource>

    private init(_ source: UnsafeMutablePointer<GSource>, callback: GSourceFunc, handler: @escaping (UInt32) -> Bool) {
        self.source = source
        g_source_set_callback(
            source, callback, Unmanaged.passRetained(SourceHandler(handler)).toOpaque(),
            { Unmanaged<SourceHandler>.fromOpaque($0!).release() })
        g_source_attach(source, nil)
    }

    deinit {
        cancel()
        g_source_unref(source)
    }

    /// Calls `handler` whenever `descriptor` is ready for what `readiness` asks (errors and
    /// hang-ups always count).
    public static func watch(_ descriptor: Int32, for readiness: Readiness, _ handler: @escaping (Readiness) -> Void) -> LoopSource {
        let condition = GIOCondition(rawValue: readiness.rawValue | G_IO_ERR.rawValue | G_IO_HUP.rawValue)
        return LoopSource(
            g_unix_fd_source_new(descriptor, condition),
            callback: unsafeBitCast(descriptorCallback, to: GSourceFunc.self)
        ) { ready in
            handler(Readiness(rawValue: ready))
            return true
        }
    }

    /// Calls `handler` after `milliseconds`, and again each `milliseconds` while it returns
    /// true. Zero means at the loop's next round.
    public static func timeout(milliseconds: UInt32, _ handler: @escaping () -> Bool) -> LoopSource {
        LoopSource(g_timeout_source_new(milliseconds), callback: timeoutCallback) { _ in handler() }
    }

    /// No more calls after this; cancelling again does nothing.
    public func cancel() {
        g_source_destroy(source)
    }
}

private final class SourceHandler {
    let body: (UInt32) -> Bool
    init(_ body: @escaping (UInt32) -> Bool) { self.body = body }
}

/// A descriptor source's callback, as GLib calls it (`GUnixFDSourceFunc`).
private let descriptorCallback: @convention(c) (gint, GIOCondition, gpointer?) -> gboolean = { _, condition, data in
    Unmanaged<SourceHandler>.fromOpaque(data!).takeUnretainedValue().body(condition.rawValue) ? 1 : 0
}

/// A timeout's callback (`GSourceFunc`).
private let timeoutCallback: GSourceFunc = { data in
    Unmanaged<SourceHandler>.fromOpaque(data!).takeUnretainedValue().body(0) ? 1 : 0
}
