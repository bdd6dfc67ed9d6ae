import Glibc

/// Where the running program is, and whether another is installed: what a click's launch and
/// the icon look for beside this build, and on `PATH`.
public enum RunningProgram {
    /// The directory of the running executable, where a `gbnotifyctl` and an icon of the same
    /// build are looked for; nil when the kernel does not say.
    public static let directory: String? = {
        guard let path = executable(), let slash = path.lastIndex(of: "/") else { return nil }
        return String(path[..<slash])
    }()

    /// The program process `pid` runs (`/proc/PID/exe`), this one's without a pid; nil when
    /// the kernel does not say (the process is gone, or another user's).
    public static func executable(ofProcess pid: pid_t? = nil) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/\(pid.map(String.init) ?? "self")/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `program` is an executable file in one of `PATH`'s directories.
    public static func isInstalled(_ program: String, environment: [String: String]) -> Bool {
        ExecutableSearch.isInstalled(program, path: environment["PATH"]) { access($0, X_OK) == 0 }
    }
}
