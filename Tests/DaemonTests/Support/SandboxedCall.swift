import Foundation
import TestSupport

/// `gdbus call` from inside a sandbox as Flatpak makes one (bubblewrap, with `/.flatpak-info`),
/// for the checks that refuse such callers. The session bus's socket is bound in wherever the
/// session put it.
enum SandboxedCall {
    /// Runs `gdbus call --session ARGUMENTS` in the sandbox; `scratch` holds its `.flatpak-info`.
    static func gdbus(_ arguments: [String], environment: [String: String], scratch: URL) async throws -> Program.Outcome {
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let info = scratch.appendingPathComponent("flatpak-info")
        try "[Application]\nname=org.example.Hostile\n".write(to: info, atomically: true, encoding: .utf8)
        var sandbox = [
            "bwrap", "--tmpfs", "/", "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
            "--symlink", "usr/bin", "/bin", "--proc", "/proc", "--dev", "/dev", "--ro-bind", info.path, "/.flatpak-info",
        ]
        for directory in ["/tmp", "/run"] where FileManager.default.fileExists(atPath: directory) {
            sandbox += ["--bind", directory, directory]
        }
        return try await Program.run(sandbox + ["--", "/usr/bin/gdbus", "call", "--session"] + arguments, environment: environment)
    }
}
