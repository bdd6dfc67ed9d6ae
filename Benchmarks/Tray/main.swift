// gbnotify-tray-bench: what the tray item costs a process in memory, the tray on against off,
// on the session bus it is run on (any: `scripts/desktop-session` gives one).
//
//     gbnotify-tray-bench SVG-FILE GBNOTIFYCTL [ROUNDS]   (ROUNDS: 50 by default)
//         Connects to the session bus and reads its own Private_Dirty (/proc/self/smaps_rollup,
//         what the process alone costs the machine). "off": ROUNDS states handed to a TrayModel
//         with no tray, the daemon's work with `tray = off`. "on": then starts a Tray on the
//         same connection, its count drawn by GBNOTIFYCTL (`draw-tray-icon`) as gbnotifyd has
//         it drawn, and hands it ROUNDS states of a count that changes every time (nothing is
//         drawn until a host asks), then ROUNDS more, each followed by what a host asks (GetAll
//         of the item, which has the count drawn anew, and GetLayout) from another process
//         (gdbus), as a host would, and 1.5 s more, for the daemon to settle. Everything runs
//         on the main loop's thread, as in gbnotifyd (`LoopMain`): code spread over Swift's
//         thread pool would get malloc arenas of its own, memory gbnotifyd does not spend.
//         Prints one line of JSON: {"off_kib", "started_kib", "drawn_kib", "on_kib",
//         "growth_kib"}, Private_Dirty after each phase, and the growth from off to on.
//
// Built by Benchmarks/run; BENCHMARKS.md has the figures.
import DBus
import FoundationEssentials
import Glibc
import Logging
import MainLoop
import PushCore
import Spawn
import Tray

func fail(_ message: String) -> Never {
    let line = Array("gbnotify-tray-bench: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(1)
}

/// Private_Dirty of this process, in KiB.
func privateDirty() -> Int {
    guard let file = fopen("/proc/self/smaps_rollup", "r") else { fail("cannot read /proc/self/smaps_rollup") }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, Int32(line.count), file) != nil {
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if text.hasPrefix("Private_Dirty:") {
            return Int(text.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
    }
    fail("no Private_Dirty in /proc/self/smaps_rollup")
}

func state(_ round: Int, _ account: Account) -> TrayState {
    let rows = (0..<10).map { index in
        let id = Int64(round * 10 + index)
        return InboxItem(
            id: id, repo: "krz/gitbay", kind: .issue, actor: "ann", summary: "opened issue #\(id)", path: "krz/gitbay/issues/\(id)",
            createdAt: "2026-01-01T00:00:00Z", readAt: nil)
    }.reversed()
    return TrayState(shelves: [TrayState.Shelf(account: account, unread: .exact(round % 150 + 1), newest: Array(rows))])
}

struct Figures: Encodable {
    let off_kib: Int
    /// After `Tray.start`: the objects exported, the bare icon drawn.
    let started_kib: Int
    /// After ROUNDS states, with no host asking.
    let drawn_kib: Int
    /// After ROUNDS more, each asked for by a host and so drawn.
    let on_kib: Int
    let growth_kib: Int
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard (2...3).contains(arguments.count) else {
    fail("usage: gbnotify-tray-bench SVG-FILE GBNOTIFYCTL [ROUNDS]")
}
let drawing = Tray.IconDrawing(program: arguments[1], svgFile: arguments[0])
let rounds = arguments.count == 3 ? Int(arguments[2]) ?? 0 : 50
guard rounds > 0 else { fail("ROUNDS is a positive number") }

LoopMain.run {
    do {
        let account = try Account(instance: GitbayInstance(parsing: "https://gitbay.org"), username: "cmc")
        let connection = try await DBusConnection.connect()
        var model = TrayModel()
        for round in 1...rounds {
            _ = model.show(state(round, account))
            _ = model.layout()
        }
        let off = privateDirty()

        let logger = Logger(level: .error)
        let tray = try await Tray.start(on: connection, options: Tray.Options(mode: .on, drawing: drawing), logger: logger)
        let started = privateDirty()
        for round in 1...rounds {
            await tray.show(state(round, account))
        }
        let drawn = privateDirty()
        for round in 1...rounds {
            await tray.show(state(round, account))
            // From another process, as a host asks: what a reader makes of the answers is the
            // host's memory, not ours.
            for call in [
                "/StatusNotifierItem --method org.freedesktop.DBus.Properties.GetAll org.kde.StatusNotifierItem",
                "/MenuBar --method com.canonical.dbusmenu.GetLayout 0 -- -1 []",
            ] {
                let arguments = ["gdbus", "call", "--session", "--dest", connection.uniqueName, "--object-path"]
                    + call.split(separator: " ").map(String.init)
                let outcome = try await ChildProcess.run(arguments, stdoutLimit: 1 << 20, stderrLimit: 4096, deadline: .seconds(30))
                guard outcome.termination == .exited(0) else { fail("gdbus could not ask the tray: \(call)") }
            }
        }
        // As the daemon would be a moment after the host's last question: the pages its
        // answers took are given back a second after it (`MainLoop.trimHeapSoon`).
        try await Task.sleep(for: .milliseconds(1_500))
        let on = privateDirty()
        let line = try JSONEncoder().encode(Figures(off_kib: off, started_kib: started, drawn_kib: drawn, on_kib: on, growth_kib: on - off))
        print(String(decoding: line, as: UTF8.self))
        tray.stop()
        await connection.close()
        return 0
    } catch {
        fail("\(error)")
    }
}
