import Foundation
import Glibc

/// A directory of its own for a test of Reply… in the terminal, holding the `VISUAL` the view
/// starts: a script that writes `EditorScript.reply` and a comment line (which the reply's
/// template drops) into the file it is given, as a user's editor would.
struct EditorScript {
    /// What the editor writes that is posted.
    static let reply = "Written in the editor."

    let directory: URL
    /// The editor's path.
    let path: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("gbnotify-reply-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent("editor").path
        try "#!/bin/sh\nprintf '\(Self.reply)\\n# a line the editor template drops\\n' > \"$1\"\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
    }

    /// A path in the directory, for the terminal's script.
    func file(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}
