import FoundationEssentials
import Glibc

/// A state file holding one JSON value, read and written like every state file: atomically,
/// mode 0600, never through a link. One that does not parse is set aside and read as absent,
/// with a warning: state is a convenience the daemon can rebuild, never a reason to fail.
struct JSONStateFile<Value: Codable> {
    let path: String
    let limit: Int
    /// What rebuilding means, for the warning: "the relay stream starts from now".
    let afresh: String

    func load(_ isUsable: (Value) -> Bool = { _ in true }) throws(StateError) -> (value: Value?, warning: String?) {
        guard let bytes = try AtomicFile.read(path, limit: limit) else { return (nil, nil) }
        if let value = try? JSONDecoder().decode(Value.self, from: Data(bytes)), isUsable(value) {
            return (value, nil)
        }
        let aside = try AtomicFile.setAside(path, suffix: String(Int(Date().timeIntervalSince1970)))
        return (nil, "\(path) was unreadable; kept it as \(aside), and \(afresh)")
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
