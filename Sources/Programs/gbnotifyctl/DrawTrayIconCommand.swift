import CommandKit
import PushCore
import SystemCalls
import TrayIcon

/// `gbnotifyctl draw-tray-icon SVG-FILE COUNT`: the tray icon with COUNT in its badge, written to
/// standard output as `TrayPixmap.encode` lays it out. gbnotifyd runs it whenever the count
/// changes, so that librsvg and cairo live in this short-lived process and never in the daemon.
struct DrawTrayIconCommand: Command {
    static let configuration = CommandConfiguration(
        name: "draw-tray-icon",
        abstract: "Draw the tray icon with a count, for gbnotifyd.",
        positionals: [svgFile, count],
        discussion: "Writes the icon's pixels at 22, 24, 32 and 48 px to standard output; COUNT is what the badge says, or '' for none.",
        isHidden: true
    )
    static let svgFile = Positional("SVG-FILE", help: "the icon's SVG file", completion: .file)
    static let count = Positional("COUNT", help: "what the badge says")

    /// gbnotify's icon is a few KiB; a file much larger is not it.
    static let maximumSVG = 1 << 20

    let svgFile: String
    let count: String

    init(parsing arguments: inout Arguments) throws(UsageError) {
        svgFile = try arguments.positional(Self.svgFile)
        count = try arguments.positional(Self.count)
        guard count.count <= 3, count.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "+") }) else {
            throw UsageError(
                Localized.text(
                    "{option} is up to three characters of digits and '+', as '7' or '99+'",
                    note: "A usage error of gbnotifyctl. {option}: the option (stays as it is).", ["option": Self.count.name]))
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
            do {
                try FileDescriptor.standardOutput.writeAll(bytes)
            } catch {
                return ExitStatus.failure
            }
            return ExitStatus.success
        } catch {
            Console.error("gbnotifyctl: \(error)")
            return ExitStatus.failure
        }
    }

    /// The file's bytes, when it is a regular file of at most `maximumSVG` bytes.
    private static func contents(of path: String) -> [UInt8]? {
        guard let bytes = try? FileDescriptor.readRegularFile(path, upTo: maximumSVG + 1), bytes.count <= maximumSVG else { return nil }
        return bytes
    }
}
