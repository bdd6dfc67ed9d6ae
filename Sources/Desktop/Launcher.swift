import Glibc
import Logging
import MainLoop
import PushCore
import Spawn

/// Starts what a click opens, by argv with no shell, and logs a program that is missing or
/// fails together with what to install.
struct Launcher: Sendable {
    let logger: Logger
    /// The daemon's environment, which what it starts inherits.
    let environment: [String: String]

    func launch(_ launch: ClickLaunch) {
        let program = launch.argv[0]
        var environment = self.environment
        for (name, value) in launch.environment { environment[name] = value }
        // systemd's readiness socket is the daemon's own; a browser must not report on its behalf.
        environment["NOTIFY_SOCKET"] = nil
        let pid: pid_t
        do {
            pid = try Spawn.start(launch.argv, environment: environment, stdin: .devNull, stdout: .inherit, stderr: .inherit)
        } catch {
            logger.error("cannot open the notice: \(program): \(error); \(Self.advice(for: program))")
            return
        }
        logger.info("opened with \(program) (pid \(pid))")
        // Reaped by the main loop's child watch: a browser launcher may take its time.
        let logger = self.logger
        Task {
            let exit = await ChildWatch.exit(of: pid)
            guard exit != .exited(0) else { return }
            logger.error("cannot open the notice: \(program) \(exit); \(Self.advice(for: program))")
        }
    }

    private static func advice(for program: String) -> String {
        switch program {
        case "xdg-open": "install xdg-utils (apt install xdg-utils) and set a default browser"
        case "xdg-terminal-exec", "x-terminal-emulator":
            "install a terminal, or set terminal = ... in the config (for example terminal = kitty -e)"
        default: "check that \(program) is installed and works, or change the config"
        }
    }
}

extension Launcher {
    /// The directory of the running executable, where a `gbnotifyctl` of the same build is
    /// looked for to run the terminal view; nil when the kernel does not say.
    static let programDirectory: String? = {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        let path = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = path.lastIndex(of: "/") else { return nil }
        return String(path[..<slash])
    }()

    /// Whether `program` is an executable file in one of `PATH`'s directories.
    static func isInstalled(_ program: String, environment: [String: String]) -> Bool {
        ExecutableSearch.isInstalled(program, path: environment["PATH"]) { access($0, X_OK) == 0 }
    }
}
