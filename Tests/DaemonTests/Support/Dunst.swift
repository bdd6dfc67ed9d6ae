import DBus
import Foundation
import Glibc
import Synchronization
import TestSupport
import Testing

/// dunst, the notification server of this process's own desktop session (started by
/// `scripts/desktop-session`), driven the way a user would: `dunstctl` clicks "the notification
/// at the top", so only a session nobody else shows anything on makes that click mean ours.
/// dunst and dunstctl are the session's own release (its `in-desktop`): Debian 12's 1.9, or
/// 1.12 from the Debian 13 root in a `--debian13` session.
///
/// `config` is the dunst config a suite's session is started with: its stock one in the parts
/// that matter (`markup = full`, so it advertises `body-markup`), except that its context menu
/// runs `pick-action` (its dmenu), which chooses "Mark read" (or the action `choose` names),
/// so `dunstctl context` clicks that action, and keeps the menu it was offered (`lastMenu`).
enum Dunst {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static let serverName = "org.freedesktop.Notifications"

    /// Writes the config under `directory` and returns the environment that makes dunst read
    /// it (`XDG_CONFIG_DIRS`).
    static func config(in directory: URL) throws -> [String: String] {
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("xdg/dunst"), withIntermediateDirectories: true)
        let path = directory.path
        try write("""
            [global]
                markup = full
                dmenu = \(path)/pick-action
            """, to: "\(path)/xdg/dunst/dunstrc")
        try write("""
            #!/bin/sh
            choice="$(dirname "$0")/pick.key"
            key=$(cat "$choice" 2>/dev/null && rm -f "$choice" || echo mark-read)
            menu=$(cat)
            printf '%s\\n' "$menu" > "$(dirname "$0")/menu.last"
            printf '%s\\n' "$menu" | grep -m1 "$key\\]\\$"

            """, to: "\(path)/pick-action", executable: true)
        return ["XDG_CONFIG_DIRS": "\(path)/xdg"]
    }

    /// Opens the top notification's context menu, where `pick-action` chooses the action `key`
    /// this once (it reads and removes `pick.key` when dunst runs it, after `dunstctl` returned).
    static func choose(_ key: String) async throws {
        guard let configDirectory = ProcessInfo.processInfo.environment["XDG_CONFIG_DIRS"] else {
            throw Failure(description: "no XDG_CONFIG_DIRS: this session's dunst was not started with Dunst.config")
        }
        let file = URL(fileURLWithPath: configDirectory).deletingLastPathComponent().appendingPathComponent("pick.key").path
        try key.write(toFile: file, atomically: true, encoding: .utf8)
        try await ctl("context")
    }

    /// The menu dunst offered the last `choose`, one action a line: `#LABEL (SUMMARY) [ID,KEY]`.
    /// Written before the choice is made, so it is there once the choice took effect.
    static func lastMenu() throws -> String {
        guard let configDirectory = ProcessInfo.processInfo.environment["XDG_CONFIG_DIRS"] else {
            throw Failure(description: "no XDG_CONFIG_DIRS: this session's dunst was not started with Dunst.config")
        }
        let file = URL(fileURLWithPath: configDirectory).deletingLastPathComponent().appendingPathComponent("menu.last")
        return try String(contentsOf: file, encoding: .utf8)
    }

    /// dunstctl on this session's bus; its output without the trailing newline.
    @discardableResult
    static func ctl(_ arguments: String...) async throws -> String {
        let outcome = try await Program.run(try inDesktop(["dunstctl"] + arguments), environment: ProcessInfo.processInfo.environment)
        guard outcome.status == 0 else {
            throw Failure(description: "dunstctl \(arguments.joined(separator: " ")) failed: \(outcome.stderr)")
        }
        return outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// How many notifications are on screen.
    static func displayed() async throws -> Int {
        Int(try await ctl("count", "displayed")) ?? -1
    }

    /// Kills the notification server, as a crash would, and returns once it has left the bus.
    static func kill() async throws {
        try await withConnection { connection in
            for await owner in try await connection.watchNameOwner(serverName) {
                guard let owner else { return }
                let pid = try await connection.call(
                    destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                    member: "GetConnectionUnixProcessID", arguments: [.string(owner)]
                ).first?.uint32Value
                guard let pid else { throw Failure(description: "no process id for the notification server \(owner)") }
                Glibc.kill(pid_t(pid), SIGKILL)
            }
        }
    }

    static func isRunning() async throws -> Bool {
        try await withConnection { try await $0.nameHasOwner(serverName) }
    }

    /// The dunst processes `start()` started: a `Program` that goes away kills its process.
    private static let started = Mutex<[Program]>([])

    /// Starts dunst again on this session's display, and returns once it owns its name. It is
    /// left running when the test ends, as the session's own was.
    static func start() async throws {
        let dunst = try Program(try inDesktop(["dunst"]), environment: ProcessInfo.processInfo.environment)
        started.withLock { $0.append(dunst) }
        try await withConnection { connection in
            let owners = try await connection.watchNameOwner(serverName)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await owner in owners where owner != nil { return }
                }
                group.addTask {
                    // Sleeping is cancellable, unlike waiting for dunst to exit.
                    try await Task.sleep(for: .seconds(30))
                    throw Failure(description: "dunst did not take \(serverName) within 30 s")
                }
                try await group.next()
                group.cancelAll()
            }
        }
    }

    /// One closed notification from `dunstctl history`.
    struct HistoryEntry: Sendable, Equatable {
        let summary: String
        let body: String
        let appName: String
        let category: String
        let iconPath: String
    }

    /// Closes what is displayed, then reads dunst's history, newest first.
    static func closeAllAndReadHistory() async throws -> [HistoryEntry] {
        try await ctl("close-all")
        let json = try JSONSerialization.jsonObject(with: Data(try await ctl("history").utf8)) as? [String: Any]
        let lists = json?["data"] as? [[[String: Any]]] ?? []
        return lists.flatMap { $0 }.map { entry in
            func field(_ name: String) -> String { (entry[name] as? [String: Any])?["data"] as? String ?? "" }
            return HistoryEntry(
                summary: field("summary"), body: field("body"), appName: field("appname"), category: field("category"),
                iconPath: field("icon_path"))
        }
    }

    /// `argv` run by the session's own release (`scripts/desktop-session`'s `in-desktop`).
    private static func inDesktop(_ argv: [String]) throws -> [String] {
        guard let session = ProcessInfo.processInfo.environment["PRIVATE_DESKTOP_SESSION"] else {
            throw Failure(description: "no PRIVATE_DESKTOP_SESSION: this process is not in scripts/desktop-session")
        }
        return ["\(session)/in-desktop"] + argv
    }

    private static func withConnection<Result: Sendable>(_ body: (DBusConnection) async throws -> Result) async throws -> Result {
        try await DBusConnection.connect().closing(after: body)
    }

    private static func write(_ text: String, to path: String, executable: Bool = false) throws {
        try Data((text + "\n").utf8).write(to: URL(fileURLWithPath: path))
        if executable { chmod(path, 0o755) }
    }
}
