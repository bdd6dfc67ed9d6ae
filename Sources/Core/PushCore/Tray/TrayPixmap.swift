/// The tray icon at one size, as `IconPixmap` takes it, and the bytes it travels in from the
/// short-lived process that draws it (`gbnotifyctl draw-tray-icon`) to the daemon: the daemon
/// links no SVG or drawing library, so their memory is the drawing process's for a moment, not
/// the daemon's for its life.
public struct TrayPixmap: Sendable, Equatable {
    /// The sizes hosts draw, in the order they travel.
    public static let sizes = [22, 24, 32, 48]
    /// All of them, one after another: ARGB32 at each size in `sizes`' order, nothing else.
    public static let encodedSize = sizes.reduce(0) { $0 + $1 * $1 * 4 }

    public let size: Int
    /// ARGB32, not premultiplied, in network byte order: what the StatusNotifierItem
    /// specification asks for.
    public let argb: [UInt8]

    public init(size: Int, argb: [UInt8]) {
        self.size = size
        self.argb = argb
    }

    public struct DecodingError: Error, CustomStringConvertible, Equatable {
        public let description: String
    }

    /// One of each size in `sizes`, in that order; anything else is refused.
    public static func encode(_ pixmaps: [TrayPixmap]) -> [UInt8]? {
        guard pixmaps.map(\.size) == sizes, pixmaps.allSatisfy({ $0.argb.count == $0.size * $0.size * 4 }) else { return nil }
        return pixmaps.flatMap(\.argb)
    }

    /// The pixmaps in `bytes`, which must be exactly `encodedSize` long.
    public static func decode(_ bytes: [UInt8]) throws(DecodingError) -> [TrayPixmap] {
        guard bytes.count == encodedSize else {
            throw DecodingError(description: "\(bytes.count) bytes of pixmaps, not \(encodedSize)")
        }
        var offset = 0
        return sizes.map { size in
            defer { offset += size * size * 4 }
            return TrayPixmap(size: size, argb: Array(bytes[offset..<offset + size * size * 4]))
        }
    }
}
