import FoundationEssentials
import Glibc

/// A state file holding one JSON value, read and written like every state file: atomically,
/// mode 0600, never through a link, never waiting. One that does not parse, or holds a value out
/// of its range (the types' decoders bound them, `DecodingBounds`), is set aside and read as
/// absent, with a warning: state is a convenience the daemon can rebuild, never a reason to
/// fail. So is a FIFO or a device in its place, which is never read.
struct JSONStateFile<Value: Codable> {
    let path: String
    let limit: Int
    /// What rebuilding means, for the warning: "the relay stream starts from now".
    let afresh: String

    func load(_ isUsable: (Value) -> Bool = { _ in true }) throws(StateError) -> (value: Value?, warning: String?) {
        let bytes: [UInt8]
        do throws(StateError) {
            guard let read = try AtomicFile.read(path, limit: limit) else { return (nil, nil) }
            bytes = read
        } catch {
            guard case .notRegularFile(_, let kind) = error else { throw error }
            return (nil, "\(path) is \(kind), not a regular file; \(try setAside()), and \(afresh)")
        }
        if let value = try? JSONDecoder().decode(Value.self, from: Data(bytes)), isUsable(value) {
            return (value, nil)
        }
        return (nil, "\(path) was unreadable; \(try setAside()), and \(afresh)")
    }

    /// Moves the file out of the way, for a bug report; says where to.
    private func setAside() throws(StateError) -> String {
        "kept it as \(try AtomicFile.setAside(path, suffix: String(Int(Date().timeIntervalSince1970))))"
    }

    func save(_ value: Value) throws(StateError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let bytes: Data
        do {
            bytes = try encoder.encode(value)
        } catch {
            throw .io("cannot encode \(path)", errno: EINVAL)
        }
        try AtomicFile.write(Array(bytes), to: path)
    }

    func remove() throws(StateError) {
        guard unlink(path) == 0 || errno == ENOENT else { throw .io("cannot remove \(path)", errno: errno) }
    }
}
