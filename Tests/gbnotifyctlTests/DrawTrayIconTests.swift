import Foundation
import PushCore
import Testing
import TestSupport

/// `gbnotifyctl draw-tray-icon`, which gbnotifyd runs to draw the tray's count: the pixmaps it
/// writes, what it refuses, and that users are not told of it.
@Suite struct DrawTrayIconTests {
    let environment = ProcessInfo.processInfo.environment
    let svg = "\(Standin.packageRoot)/packaging/gbnotify.svg"

    func draw(_ arguments: [String]) async throws -> (status: Int32, stdout: [UInt8], stderr: String) {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("draw-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        // The pixels are binary: read from a file, not as text.
        let run = try await Program.run(
            ["/bin/sh", "-c", "exec \"$0\" draw-tray-icon \"$@\" > \"\(output.path)\"", Program.built("gbnotifyctl")] + arguments,
            environment: environment)
        return (run.status, Array((try? Data(contentsOf: output)) ?? Data()), run.stderr)
    }

    @Test func itWritesThePixmapsOfEverySizeAndTheCountChangesThem() async throws {
        let bare = try await draw([svg, ""])
        #expect(bare.status == 0, "\(bare.stderr)")
        let pixmaps = try TrayPixmap.decode(bare.stdout)
        #expect(pixmaps.map(\.size) == TrayPixmap.sizes)
        // The icon's corner is transparent, its middle-left edge the flat blue.
        let large = try #require(pixmaps.last)
        #expect(large.argb[0] == 0)
        let offset = ((48 * 2 / 3) * 48 + 48 / 10 + 1) * 4
        #expect(Array(large.argb[offset..<offset + 4]) == [0xff, 0x2f, 0x5d, 0x8a])
        let seven = try await draw([svg, "7"])
        let many = try await draw([svg, "99+"])
        #expect(Set([bare.stdout, seven.stdout, many.stdout]).count == 3)
        #expect(seven.stdout.count == TrayPixmap.encodedSize)
    }

    @Test func itRefusesWhatIsNotACountOrAnIcon() async throws {
        let word = try await draw([svg, "seven"])
        #expect(word.status == 2)
        #expect(word.stderr.contains("COUNT is up to three characters"))
        let missing = try await draw(["/nonexistent/gbnotify.svg", "7"])
        #expect(missing.status == 1)
        #expect(missing.stdout.isEmpty)
        let notSVG = try await draw(["/etc/hostname", "7"])
        #expect(notSVG.status == 1)
        #expect(notSVG.stderr.contains("cannot render the tray icon's SVG"), "\(notSVG.stderr)")
        let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("fifo-\(UUID().uuidString)").path
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        // Not a regular file: refused without waiting for a writer.
        #expect(try await draw([fifo, "7"]).status == 1)
    }

    @Test func usersAreNotToldOfIt() async throws {
        let help = try await Program.run([Program.built("gbnotifyctl"), "--help"], environment: environment)
        #expect(!help.stdout.contains("draw-tray-icon"))
        let unknown = try await Program.run([Program.built("gbnotifyctl"), "bogus"], environment: environment)
        #expect(!unknown.stderr.contains("draw-tray-icon"))
    }
}
