/// Finding a program the way `posix_spawnp` and the shells do: a name with a slash is a path,
/// anything else is looked for in each directory of `PATH`, in order. Whether a file is an
/// executable is the caller's to say (`access(X_OK)`), so the rule can be tested without files.
public enum ExecutableSearch {
    /// The `PATH` a process with none set searches (glibc's default).
    public static let defaultPath = "/usr/local/bin:/usr/bin:/bin"

    public static func isInstalled(
        _ program: String, path: String?, isExecutable: (String) -> Bool
    ) -> Bool {
        guard !program.isEmpty else { return false }
        if program.contains("/") { return isExecutable(program) }
        return (path ?? defaultPath).split(separator: ":", omittingEmptySubsequences: false).contains { directory in
            // An empty entry is the current directory.
            isExecutable(directory.isEmpty ? program : "\(directory)/\(program)")
        }
    }
}
