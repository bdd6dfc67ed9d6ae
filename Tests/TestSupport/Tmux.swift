import Foundation
import Glibc

/// A tmux server of a test suite's own: real pseudo-terminals, headless, for running
/// `gbnotifyctl`'s view as a user would and reading the screen back (`capture-pane`).
///
/// The server lives as long as a session that waits for this process to end, so a test run that
/// crashes leaves no server behind; `stop()` ends it at once.
public final class Tmux: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The server's socket name (`tmux -L`).
    public let socket: String
    let directory: URL

    public static func start() async throws -> Tmux {
        let tmux = try Tmux()
        // UTF-8 whatever the locale (-u), no user config, and a first session that ends with
        // this process.
        try await tmux.command(["new-session", "-d", "-s", "lifeline", "tail", "--pid=\(getpid())", "-f", "/dev/null"])
        // The windows of detached sessions keep the size they are made with, and `resize-window`
        // makes a window's size manual by itself: no `window-size manual`, which crashes tmux
        // 3.3a at the next new-session.
        return tmux
    }

    private init() throws {
        socket = "gbnotify-test-\(getpid())-\(UUID().uuidString.prefix(8))"
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(socket)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    public func stop() async {
        _ = try? await command(["kill-server"])
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs `tmux ARGUMENTS` against this server, the client's environment this process's with
    /// `environment` over it; its standard output.
    @discardableResult
    func command(_ arguments: [String], environment: [String: String] = [:]) async throws -> String {
        let run = try await Program.run(
            ["tmux", "-u", "-f", "/dev/null", "-L", socket] + arguments,
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 })
        guard run.status == 0 else {
            throw Failure(description: "tmux \(arguments.joined(separator: " ")) failed (\(run.status)): \(run.stderr)")
        }
        return run.stdout
    }

    /// Starts `argv` in a new session of `columns` by `rows`, with `environment` added to the
    /// server's own. It starts once the pane's output is watched, so not a byte of its first
    /// frame is missed; a shell around it records the terminal's settings (`stty -g`) before
    /// and after it and its exit status, then waits (the pane open, for the test to read how the
    /// program left the terminal) until the pane is dropped.
    public func run(
        _ argv: [String], environment: [String: String] = [:], columns: Int = 100, rows: Int = 30
    ) async throws -> Pane {
        let pane = try Pane(tmux: self)
        var arguments = ["new-session", "-d", "-s", pane.name, "-x", String(columns), "-y", String(rows)]
        for (name, value) in environment.sorted(by: { $0.key < $1.key }) { arguments += ["-e", "\(name)=\(value)"] }
        arguments += ["sh", pane.wrapper, pane.directory.path] + argv
        // A detached client's PATH is the new window's, whatever -e says.
        try await command(arguments, environment: environment.filter { $0.key == "PATH" })
        try await command(["pipe-pane", "-t", pane.name, "-O", "cat >> '\(pane.directory.path)/output'"])
        try pane.go()
        return pane
    }

    /// A terminal program at `path` for something else to start (a click of the daemon's, with
    /// `terminal = PATH` in its config): it runs its arguments as `run` does, in the pane it
    /// returns, and records them (`Pane.arguments()`).
    public func terminal(at path: String, columns: Int = 100, rows: Int = 30) throws -> Pane {
        let pane = try Pane(tmux: self)
        let tmux = "tmux -u -f /dev/null -L '\(socket)'"
        let directory = pane.directory.path
        let script = """
            #!/bin/sh
            printf '%s\\n' "$@" > '\(directory)/arguments'
            \(tmux) new-session -d -s '\(pane.name)' -x \(columns) -y \(rows) sh '\(pane.wrapper)' '\(directory)' "$@" || exit 1
            \(tmux) pipe-pane -t '\(pane.name)' -O "cat >> '\(directory)/output'"
            echo go > '\(directory)/go'

            """
        try Data(script.utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o755)
        return pane
    }
}

/// One program running in a tmux session of its own.
public final class Pane: Sendable {
    public let name: String
    let directory: URL
    let tmux: Tmux
    /// Read ends of the FIFOs: what the pane draws (through `pipe-pane`), the exit status.
    private let output: Int32
    private let status: Int32
    /// The FIFO the shell waits on before it starts the program; kept open so that the word
    /// written to it stays until the shell reads it.
    private let starter: Int32

    init(tmux: Tmux) throws {
        self.tmux = tmux
        name = "view-\(UUID().uuidString.prefix(8))"
        directory = tmux.directory.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for fifo in ["go", "output", "status"] {
            guard mkfifo(directory.appendingPathComponent(fifo).path, 0o600) == 0 else {
                throw Tmux.Failure(description: "mkfifo \(fifo) failed")
            }
        }
        // Opened read-write, so no open blocks and a writer that never comes means a timeout.
        output = open(directory.appendingPathComponent("output").path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        status = open(directory.appendingPathComponent("status").path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        starter = open(directory.appendingPathComponent("go").path, O_RDWR | O_CLOEXEC)
        try Data(Self.wrapperScript.utf8).write(to: URL(fileURLWithPath: wrapper))
    }

    deinit {
        [output, status, starter].forEach { _ = close($0) }
    }

    /// The shell script around the program: `sh WRAPPER DIRECTORY ARGV...`. It ignores SIGHUP
    /// so that it outlives a hung-up terminal and reports the status of the program, which sets
    /// its own handler.
    var wrapper: String { directory.appendingPathComponent("wrapper.sh").path }

    private static let wrapperScript = """
        trap '' HUP
        dir=$1; shift
        read go < "$dir/go"
        stty -g > "$dir/before"
        "$@"
        status=$?
        stty -g > "$dir/after" 2>/dev/null
        echo $status > "$dir/status"
        read done < "$dir/go"

        """

    /// What the terminal was started with, for `terminal(at:)`'s panes.
    public func arguments() throws -> [String] {
        let text = try String(contentsOf: directory.appendingPathComponent("arguments"), encoding: .utf8)
        return text.split(separator: "\n").map(String.init)
    }

    /// Lets the program start.
    func go() throws {
        guard write(starter, "go\n", 3) == 3 else { throw Tmux.Failure(description: "cannot start the pane's program") }
    }

    /// `send-keys` with tmux's key names: `j`, `Enter`, `Escape`, `C-c`, `NPage`, `End`.
    public func send(_ keys: String...) async throws {
        try await tmux.command(["send-keys", "-t", name] + keys)
    }

    /// The screen as text, or with its escape sequences (`-e`).
    public func capture(escapes: Bool = false) async throws -> String {
        try await tmux.command(["capture-pane", "-p", "-t", name] + (escapes ? ["-e"] : []))
    }

    /// The screen's lines, one per row, without trailing spaces.
    public func lines() async throws -> [String] {
        var lines = try await capture().split(separator: "\n", omittingEmptySubsequences: false).map {
            String($0.reversed().drop { $0 == " " }.reversed())
        }
        // Every row ends with a newline, the last included.
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// The process id of the shell that runs the program.
    public func shellPID() async throws -> pid_t {
        let text = try await tmux.command(["display-message", "-p", "-t", name, "#{pane_pid}"])
        guard let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw Tmux.Failure(description: "no pane pid for \(name): \(text)")
        }
        return pid
    }

    /// Waits until the screen satisfies `condition`, looking again each time the program draws
    /// something; returns the screen's lines, a whole frame: tmux may be captured in the middle
    /// of drawing one, so a screen counts once nothing more was drawn for a moment after it.
    @discardableResult
    public func waitFor(
        _ what: String, timeout: Duration = .seconds(15), _ condition: @Sendable ([String]) -> Bool
    ) async throws -> [String] {
        let deadline = ContinuousClock.now + timeout
        while true {
            // What was drawn before this look is in the screen it takes.
            _ = await Self.drain(output, waiting: .zero)
            // No session yet (one a click is still to start) is nothing shown yet.
            let screen = (try? await lines()) ?? []
            let isShown = condition(screen)
            if isShown, await Self.drain(output, waiting: Self.frameSettled).isEmpty { return screen }
            let left = deadline - .now
            guard left > .zero else {
                throw Tmux.Failure(description: "the screen did not show \(what) within \(timeout); it shows:\n\(screen.joined(separator: "\n"))")
            }
            // Bytes drawn (or, at the latest, a second) mean look again; a frame still being
            // drawn is looked at again at once.
            if !isShown { _ = await Self.drain(output, waiting: min(left, .seconds(1))) }
        }
    }

    /// Waits for the program to end; its status and the terminal as it left it.
    public func waitForExit(timeout: Duration = .seconds(15)) async throws -> Exit {
        let text = await Self.drain(status, waiting: timeout, untilNewline: true)
        guard let code = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw Tmux.Failure(description: "the program in \(name) did not end within \(timeout); its screen:\n\(try await capture())")
        }
        // Nothing to read when the session is gone (a hung-up terminal).
        let flags = ((try? await tmux.command(["display-message", "-p", "-t", name, "#{alternate_on} #{cursor_flag} #{wrap_flag}"])) ?? "")
            .split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) == "1" }
        func read(_ file: String) -> String {
            (try? String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)) ?? ""
        }
        return Exit(
            status: code, settingsBefore: read("before"), settingsAfter: read("after"),
            alternateScreen: flags.count == 3 ? flags[0] : nil, cursorVisible: flags.count == 3 ? flags[1] : nil,
            lineWrap: flags.count == 3 ? flags[2] : nil)
    }

    /// How the program ended and left the terminal.
    public struct Exit: Sendable {
        public let status: Int32
        /// `stty -g` before the program started and after it ended.
        public let settingsBefore: String
        public let settingsAfter: String
        /// The terminal's modes as the program left them; nil when the terminal is gone.
        public let alternateScreen: Bool?
        public let cursorVisible: Bool?
        public let lineWrap: Bool?

        /// Exactly as it was: the same termios settings, the normal screen, the cursor shown,
        /// lines wrapping.
        public var restoredTheTerminal: Bool {
            !settingsBefore.isEmpty && settingsBefore == settingsAfter
                && alternateScreen == false && cursorVisible == true && lineWrap == true
        }
    }

    public func resize(columns: Int, rows: Int) async throws {
        try await tmux.command(["resize-window", "-t", name, "-x", String(columns), "-y", String(rows)])
    }

    /// Ends the session (a hang-up for whatever still runs in it).
    public func kill() async throws {
        try await tmux.command(["kill-session", "-t", name])
    }

    /// Reads what is waiting on `descriptor`, waiting up to `waiting` for the first byte (and,
    /// with `untilNewline`, for a newline).
    /// How long no drawing means a frame is whole.
    private static let frameSettled = Duration.milliseconds(100)

    private static func drain(_ descriptor: Int32, waiting: Duration, untilNewline: Bool = false) async -> String {
        await withCheckedContinuation { continuation in
            DispatchQueue(label: "org.gitbay.tests.tmux").async {
                let deadline = ContinuousClock.now + waiting
                var text = ""
                var buffer = [UInt8](repeating: 0, count: 65536)
                while true {
                    let left = deadline - .now
                    let milliseconds = max(Int32(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000), 0)
                    var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                    guard poll(&poller, 1, milliseconds) == 1 else { break }
                    let count = read(descriptor, &buffer, buffer.count)
                    guard count > 0 else { break }
                    text += String(decoding: buffer[..<count], as: UTF8.self)
                    if !untilNewline || text.contains("\n") { break }
                }
                continuation.resume(returning: text)
            }
        }
    }
}
