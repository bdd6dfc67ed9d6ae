internal import CRsvg
import PushCore

/// The tray icon with the unread count on it (`TrayPixmap`): the shipped SVG rendered by
/// librsvg at the sizes hosts draw (22, 24, 32, 48 px), and the count drawn over it with cairo,
/// in a red badge. `gbnotifyctl draw-tray-icon` runs it for the daemon, which links neither.
///
/// The digits are cairo strokes of their own (below): text through pango or cairo's toy API
/// would load fontconfig and its configuration, far more than ten digits and a "+" are worth.
public struct TrayIcon: Sendable {
    public enum Failure: Error, CustomStringConvertible {
        case svg(String)
        case cairo(String)

        public var description: String {
            switch self {
            case .svg(let reason): "cannot render the tray icon's SVG: \(reason)"
            case .cairo(let reason): "cannot draw the tray icon: \(reason)"
            }
        }
    }

    /// Cairo's own pixels (native-endian, premultiplied) of the bare icon at each size.
    private let renders: [(size: Int, pixels: [UInt8])]

    public init(svg: [UInt8]) throws(Failure) {
        var error: UnsafeMutablePointer<GError>?
        let handle = svg.withUnsafeBufferPointer { bytes in
            rsvg_handle_new_from_data(bytes.baseAddress, gsize(bytes.count), &error)
        }
        guard let handle else {
            defer { if error != nil { g_error_free(error) } }
            throw .svg(error.map { String(cString: $0.pointee.message) } ?? "not an SVG document")
        }
        defer { gbn_rsvg_handle_free(handle) }
        var renders: [(Int, [UInt8])] = []
        for size in TrayPixmap.sizes {
            var pixels = [UInt8](repeating: 0, count: size * size * 4)
            try Self.draw(on: &pixels, size: size) { cairo throws(Failure) in
                var viewport = RsvgRectangle(x: 0, y: 0, width: Double(size), height: Double(size))
                var failure: UnsafeMutablePointer<GError>?
                guard rsvg_handle_render_document(handle, cairo, &viewport, &failure) != 0 else {
                    defer { if failure != nil { g_error_free(failure) } }
                    throw .svg(failure.map { String(cString: $0.pointee.message) } ?? "librsvg could not render it")
                }
            }
            renders.append((size, pixels))
        }
        self.renders = renders
    }

    /// The icon at every size with `count` ("7", "99+") in its badge; the bare icon for "".
    public func pixmaps(count: String) throws(Failure) -> [TrayPixmap] {
        var pixmaps: [TrayPixmap] = []
        for (size, bare) in renders {
            var pixels = bare
            if !count.isEmpty {
                try Self.draw(on: &pixels, size: size) { cairo in Badge.draw(count, size: Double(size), on: cairo) }
            }
            pixmaps.append(TrayPixmap(size: size, argb: Self.networkOrderARGB(pixels)))
        }
        return pixmaps
    }

    /// Runs `body` with a cairo context drawing on `pixels` (cairo's ARGB32, `size` square).
    private static func draw(
        on pixels: inout [UInt8], size: Int, _ body: (OpaquePointer) throws(Failure) -> Void
    ) throws(Failure) {
        let stride = size * 4
        try pixels.withUnsafeMutableBufferPointer { (buffer: inout UnsafeMutableBufferPointer<UInt8>) throws(Failure) in
            guard let surface = cairo_image_surface_create_for_data(
                buffer.baseAddress, CAIRO_FORMAT_ARGB32, Int32(size), Int32(size), Int32(stride))
            else { throw .cairo("no surface") }
            defer { cairo_surface_destroy(surface) }
            guard let cairo = cairo_create(surface) else { throw .cairo("no context") }
            defer { cairo_destroy(cairo) }
            try body(cairo)
            let status = cairo_status(cairo)
            guard status == CAIRO_STATUS_SUCCESS else { throw .cairo(String(cString: cairo_status_to_string(status))) }
            cairo_surface_flush(surface)
        }
    }

    /// Cairo keeps each pixel as one native-endian 32-bit word with premultiplied colour; the
    /// specification wants A, R, G, B bytes in that order, colour not premultiplied.
    static func networkOrderARGB(_ pixels: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: pixels.count)
        pixels.withUnsafeBytes { raw in
            for index in 0..<(pixels.count / 4) {
                let word = raw.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self)
                let alpha = UInt32(word >> 24)
                func straight(_ channel: UInt32) -> UInt8 {
                    alpha == 0 ? 0 : UInt8(min(255, (channel * 255 + alpha / 2) / alpha))
                }
                out[index * 4] = UInt8(alpha)
                out[index * 4 + 1] = straight((word >> 16) & 0xff)
                out[index * 4 + 2] = straight((word >> 8) & 0xff)
                out[index * 4 + 3] = straight(word & 0xff)
            }
        }
        return out
    }
}

/// The count's badge: a red pill in the icon's top right corner, white digits stroked on it.
private enum Badge {
    /// Each glyph as strokes on a grid 5 wide and 8 high ("+" is 4 wide), y downwards; a
    /// stroke ending where it began is closed.
    static let glyphs: [Character: [[(Double, Double)]]] = [
        "0": [[(1.2, 0), (3.8, 0), (5, 1.2), (5, 6.8), (3.8, 8), (1.2, 8), (0, 6.8), (0, 1.2), (1.2, 0)]],
        "1": [[(1.2, 1.6), (3, 0), (3, 8)]],
        "2": [[(0, 1.5), (1.2, 0), (3.8, 0), (5, 1.3), (5, 3), (0, 8), (5, 8)]],
        "3": [[(0, 0), (5, 0), (2.2, 3.4), (3.8, 3.4), (5, 4.6), (5, 6.8), (3.8, 8), (1.2, 8), (0, 6.8)]],
        "4": [[(3.8, 8), (3.8, 0), (0, 5.6), (5, 5.6)]],
        "5": [[(5, 0), (0.5, 0), (0, 3.6), (3.6, 3.2), (5, 4.4), (5, 6.8), (3.8, 8), (1.2, 8), (0, 6.8)]],
        "6": [[(4.5, 0.2), (2.5, 0), (0.8, 1.5), (0, 4), (0, 6.8), (1.2, 8), (3.8, 8), (5, 6.8), (5, 5), (3.8, 3.8), (1.2, 3.8), (0, 5)]],
        "7": [[(0, 0), (5, 0), (1.8, 8)]],
        "8": [
            [(1.2, 0), (3.8, 0), (4.7, 0.9), (4.7, 2.7), (3.8, 3.6), (1.2, 3.6), (0.3, 2.7), (0.3, 0.9), (1.2, 0)],
            [(1.2, 3.6), (3.8, 3.6), (5, 4.8), (5, 6.8), (3.8, 8), (1.2, 8), (0, 6.8), (0, 4.8), (1.2, 3.6)],
        ],
        "9": [[(0.5, 7.8), (2.5, 8), (4.2, 6.5), (5, 4), (5, 1.2), (3.8, 0), (1.2, 0), (0, 1.2), (0, 3), (1.2, 4.2), (3.8, 4.2), (5, 3)]],
        "+": [[(0, 4), (4, 4)], [(2, 2), (2, 6)]],
    ]
    static let gap = 1.8
    static let strokeWidth = 1.7

    static func width(of glyph: Character) -> Double { glyph == "+" ? 4 : 5 }

    static func draw(_ text: String, size: Double, on cairo: OpaquePointer) {
        let glyphs = text.filter { Self.glyphs[$0] != nil }
        guard !glyphs.isEmpty else { return }
        // The pill is a little over half the icon's height; the digits fill 60% of it.
        let height = (size * 0.6).rounded()
        let unit = height * 0.6 / (8 + strokeWidth)
        let textWidth = (glyphs.map(Self.width(of:)).reduce(0, +) + gap * Double(glyphs.count - 1) + strokeWidth) * unit
        let width = min(size, max(height, textWidth + height * 0.45))
        let left = size - width, radius = height / 2

        cairo_new_path(cairo)
        cairo_arc(cairo, left + radius, radius, radius, .pi / 2, .pi * 3 / 2)
        cairo_arc(cairo, size - radius, radius, radius, -.pi / 2, .pi / 2)
        cairo_close_path(cairo)
        cairo_set_source_rgb(cairo, 0xe8 / 255.0, 0x56 / 255.0, 0x3f / 255.0)
        cairo_fill(cairo)

        cairo_set_source_rgb(cairo, 1, 1, 1)
        cairo_set_line_width(cairo, strokeWidth * unit)
        cairo_set_line_cap(cairo, CAIRO_LINE_CAP_ROUND)
        cairo_set_line_join(cairo, CAIRO_LINE_JOIN_ROUND)
        var x = left + (width - textWidth) / 2 + strokeWidth * unit / 2
        let top = (height - 8 * unit) / 2
        for glyph in glyphs {
            for stroke in Self.glyphs[glyph] ?? [] {
                guard let first = stroke.first, let last = stroke.last else { continue }
                cairo_move_to(cairo, x + first.0 * unit, top + first.1 * unit)
                for point in stroke.dropFirst() {
                    cairo_line_to(cairo, x + point.0 * unit, top + point.1 * unit)
                }
                if stroke.count > 2, first == last { cairo_close_path(cairo) }
            }
            x += (Self.width(of: glyph) + gap) * unit
        }
        cairo_stroke(cairo)
    }
}
