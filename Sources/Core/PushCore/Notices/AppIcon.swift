/// `app_icon` of every notification: some servers show no icon for the `desktop-entry` hint
/// (notification-daemon ignores it; GNOME Shell resolves it only when the entry's program is on
/// its `PATH`), so each notification names its icon too, as the installed file's `file://` URI:
/// dunst 1.9 with its stock config looks a theme name up in no icon theme at all (it shows
/// nothing for `gbnotify`, or even `dialog-information`), and every server reads a file URI.
public enum AppIcon {
    /// The installed icon's name in the hicolor theme: the last resort, when no file is found.
    public static let name = "gbnotify"
    /// Where the icon sits inside a data directory.
    public static let themePath = "icons/hicolor/scalable/apps/gbnotify.svg"

    /// The icon file installed in the first of `dataDirectories` that has one, else the one
    /// beside the program (an install under another prefix, or the source tree of a build,
    /// whose `packaging/` holds it), as a `file://` URI; else the theme's name, which is no
    /// worse than nothing.
    ///
    /// - Parameters:
    ///   - dataDirectories: `$XDG_DATA_HOME` and `$XDG_DATA_DIRS`, as the environment gives them.
    ///   - executableDirectory: the directory of the running program.
    public static func choose(
        dataDirectories: [String], executableDirectory: String?, exists: (String) -> Bool
    ) -> String {
        var candidates = dataDirectories.map { "\($0)/\(themePath)" }
        if let executableDirectory {
            candidates.append("\(executableDirectory)/../share/\(themePath)")
            // A build tree: .build/debug or .build/<triple>/release under the package.
            var directory = executableDirectory
            for _ in 0..<4 {
                directory = parent(of: directory)
                candidates.append("\(directory)/packaging/gbnotify.svg")
            }
        }
        return candidates.first(where: exists).map { "file://\(standardised($0))" } ?? name
    }

    /// `$XDG_DATA_HOME` (else `~/.local/share`) and `$XDG_DATA_DIRS` (else the spec's default).
    public static func dataDirectories(environment: [String: String]) -> [String] {
        let home = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? environment["HOME"].map { "\($0)/.local/share" }
        let system = (environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share")
            .split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
        return (home.map { [$0] } ?? []) + system
    }

    private static func parent(of path: String) -> String {
        let trimmed = path.hasSuffix("/") ? String(path.dropLast()) : path
        guard let slash = trimmed.lastIndex(of: "/"), slash != trimmed.startIndex else { return "/" }
        return String(trimmed[..<slash])
    }

    /// Without `.` and `..` components, so the URI names the file plainly.
    private static func standardised(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/") {
            switch part {
            case ".": continue
            case "..": _ = parts.popLast()
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }
}
