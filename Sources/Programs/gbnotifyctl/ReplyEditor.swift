import FoundationEssentials
import Glibc
import MainLoop
import PushCore
import Spawn
import SystemCalls
import TerminalView

/// Writing a reply in the user's editor, as `git commit` does: a private temporary file with a
/// template, the editor on this terminal, then the file read back. A file whose text cannot be
/// sent (too long, the editor failed) stays where it is, named in the error: nothing typed is
/// lost.
struct ReplyEditor {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// What the file may hold at most: the text's limit and room for `#` lines; a larger file is
    /// read no further and refused as too long.
    static let fileLimit = 4 * CommentText.maximumBytes

    let environment: [String: String]

    /// What the user wrote on `template`; a failure says what went wrong and where the text is.
    func compose(_ template: String) async -> ComposedReply {
        do {
            return try await run(template)
        } catch {
            return .failed(error.description)
        }
    }

    private func run(_ template: String) async throws(Failure) -> ComposedReply {
        let file = try makeFile(template)
        let argv: [String]
        do {
            argv = try TextEditor.argv(environment: environment, file: file)
        } catch {
            throw Failure(
                description: Localized.text(
                    "cannot read the editor from $VISUAL or $EDITOR: {error}",
                    note: "gbnotifyctl reply, in lower case after \"gbnotifyctl: \". $VISUAL and $EDITOR stay as they are; {error}: why, in English.",
                    ["error": "\(error)"]))
        }
        // ^C and ^\ in the editor reach this process too (one process group at the terminal):
        // ignored while it runs, as git does, so that the editor alone decides what they do and
        // this process is there to read its file. The editor starts with every signal at its
        // default (Spawn).
        let interrupt = signal(SIGINT, SIG_IGN)
        let quit = signal(SIGQUIT, SIG_IGN)
        defer {
            signal(SIGINT, interrupt)
            signal(SIGQUIT, quit)
        }
        let pid: Int32
        do {
            pid = try Spawn.start(argv, environment: nil, stdin: .inherit, stdout: .inherit, stderr: .inherit)
        } catch {
            unlink(file)
            throw Failure(
                description: Localized.text(
                    "cannot start the editor {editor}: {error}", note: "gbnotifyctl reply, in lower case after \"gbnotifyctl: \". {editor}: its program; {error}: why, in English.",
                    ["editor": argv[0], "error": "\(error)"]))
        }
        let exit = await ChildWatch.exit(of: pid)
        switch exit {
        case .exited(0):
            break
        case .exited(let status):
            throw Failure(
                description: Localized.text(
                    "the editor {editor} exited with status {status}; nothing was sent, and the text is kept in {file}",
                    note: "gbnotifyctl reply, in lower case after \"gbnotifyctl: \". {editor}: its program; {status}: a number; {file}: a file's path.",
                    ["editor": argv[0], "status": String(status), "file": file]))
        case .killed(let signal):
            throw Failure(
                description: Localized.text(
                    "the editor {editor} was killed by signal {signal}; nothing was sent, and the text is kept in {file}",
                    note: "gbnotifyctl reply, in lower case after \"gbnotifyctl: \". {editor}: its program; {signal}: a number; {file}: a file's path.",
                    ["editor": argv[0], "signal": String(signal), "file": file]))
        }
        let bytes: [UInt8]
        do {
            let descriptor = try FileDescriptor.open(file, .readOnly, options: .noFollow)
            defer { try? descriptor.close() }
            bytes = try descriptor.read(upTo: Self.fileLimit + 1)
        } catch {
            throw Failure(
                description: Localized.text(
                    "cannot read back {file}: {error}", note: "gbnotifyctl reply, in lower case after \"gbnotifyctl: \". {file}: the editor's file; {error}: why, in English.",
                    ["file": file, "error": "\(error)"]))
        }
        guard let text = CommentText.fromEditor(String(decoding: bytes, as: UTF8.self)) else {
            unlink(file)
            return .cancelled
        }
        return .text(text, file: file)
    }

    /// A new file of this user's alone in `$TMPDIR` (else /tmp), holding `template`.
    private func makeFile(_ template: String) throws(Failure) -> String {
        let directory = environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var path = Array("\(directory)/gbnotify-reply-XXXXXX.md".utf8CString)
        let raw = path.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, 3) }
        guard raw >= 0 else {
            throw Failure(
                description: Localized.text(
                    "cannot make a temporary file in {directory}: {error}",
                    note: "gbnotifyctl reply, in lower case after \"gbnotifyctl: \". {directory}: a directory; {error}: why, in English.",
                    ["directory": directory, "error": String(cString: strerror(errno))]))
        }
        let descriptor = FileDescriptor(rawValue: raw)
        defer { try? descriptor.close() }
        let name = String(decoding: path.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        do {
            try descriptor.writeAll(template.utf8)
        } catch {
            unlink(name)
            throw Failure(
                description: Localized.text(
                    "cannot write {file}: {error}", note: "gbnotifyctl reply, in lower case after \"gbnotifyctl: \". {file}: the editor's file; {error}: why, in English.",
                    ["file": name, "error": "\(error)"]))
        }
        return name
    }
}
