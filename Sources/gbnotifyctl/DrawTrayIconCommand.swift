import CommandKit
import Glibc
import PushCore
import TrayIcon

/// `gbnotifyctl draw-tray-icon SVG-FILE COUNT`: the tray icon with COUNT in its badge, written to
/// standard output as `TrayPixmap.encode` lays it out. gbnotifyd runs it whenever the count
/// changes, so that librsvg and cairo live in this short-lived process and never in the daemon.
struct DrawTrayIconCommand: Command {
    static let configuration = CommandConfiguration(
        name: "draw-tray-icon",
        abstract: "Draw the tray icon with a count, for gbnotifyd.",
        usage: "SVG-FILE COUNT",
        discussion: "Writes the icon's pixels at 22, 24, 32 and 48 px to standard output; COUNT is what the badge says, or '' for none.",
        isHidden: true
    )

    /// gbnotify's icon is a few KiB; a file much larger is not it.
    static let maximumSVG = 1 << 20

    let svgFile: String
    let count: String

    init(parsing arguments: inout Arguments) throws(UsageError) {
        svgFile = try arguments.positional("SVG-FILE")
        count = try arguments.positional("COUNT")
        guard count.count <= 3, count.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "+") }) else {
            throw UsageError("COUNT is up to three characters of digits and '+', as '7' or '99+'")
        }
    }

    func run() async throws -> Int32 {
        guard let svg = Self.contents(of: svgFile) else {
            Console.error("gbnotifyctl: cannot read \(svgFile.displaySafe(truncatedTo: 200)), or it is over 1 MiB")
            return ExitStatus.failure
        }
        do {
            guard let bytes = TrayPixmap.encode(try TrayIcon(svg: svg).pixmaps(count: count)) else {
                Console.error("gbnotifyctl: the tray icon came out in sizes other than \(TrayPixmap.sizes)")
                return ExitStatus.failure
            }
            var written = 0
            while written < bytes.count {
                let result = bytes.withUnsafeBytes { write(1, $0.baseAddress! + written, $0.count - written) }
                guard result > 0 || errno == EINTR else { return ExitStatus.failure }
                written += max(result, 0)
            }
            return ExitStatus.success
        } catch {
            Console.error("gbnotifyctl: \(error)")
            return ExitStatus.failure
        }
    }

    /// The file's bytes, when it is a regular file of at most `maximumSVG` bytes.
    private static func contents(of path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size <= maximumSVG else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
        var filled = 0
        while filled < bytes.count {
            let result = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + filled, $0.count - filled) }
            guard result > 0 else {
                if result < 0, errno == EINTR { continue }
                return nil
            }
            filled += result
        }
        return bytes
    }
}
