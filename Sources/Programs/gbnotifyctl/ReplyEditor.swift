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
            throw Failure(description: "cannot read the editor from $VISUAL or $EDITOR: \(error)")
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
            throw Failure(description: "cannot start the editor \(argv[0]): \(error)")
        }
        let exit = await ChildWatch.exit(of: pid)
        guard exit == .exited(0) else {
            throw Failure(description: "the editor \(argv[0]) \(exit); nothing was sent, and the text is kept in \(file)")
        }
        let bytes: [UInt8]
        do {
            let descriptor = try FileDescriptor.open(file, .readOnly, options: .noFollow)
            defer { try? descriptor.close() }
            bytes = try descriptor.read(upTo: Self.fileLimit + 1)
        } catch {
            throw Failure(description: "cannot read back \(file): \(error)")
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
            throw Failure(description: "cannot make a temporary file in \(directory): \(String(cString: strerror(errno)))")
        }
        let descriptor = FileDescriptor(rawValue: raw)
        defer { try? descriptor.close() }
        let name = String(decoding: path.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        do {
            try descriptor.writeAll(template.utf8)
        } catch {
            unlink(name)
            throw Failure(description: "cannot write \(name): \(error)")
        }
        return name
    }
}
