import FoundationEssentials
import PushCore

/// `relay-cursor.json` in the state directory: where the relay stream resumes after a restart.
/// Only the daemon writes it, after each relay message it handled, atomically like every state
/// file, so a crash leaves either the old position or the new one.
extension StateDirectory {
    var relayCursorPath: String { path + "/relay-cursor.json" }

    /// The saved cursor, nil when there is none. One that does not parse is set aside and nil
    /// returned with a warning: the stream then starts from now, and the accounts' polls, which
    /// never replay what they already showed, pick up anything missed.
    public func loadRelayCursor() throws(StateError) -> (cursor: RelayCursor?, warning: String?) {
        guard let bytes = try AtomicFile.read(relayCursorPath, limit: 4096) else { return (nil, nil) }
        if let cursor = try? JSONDecoder().decode(RelayCursor.self, from: Data(bytes)),
           RelayMessage.isValidID(cursor.lastMessageID) {
            return (cursor, nil)
        }
        let aside = try AtomicFile.setAside(relayCursorPath, suffix: String(Int(Date().timeIntervalSince1970)))
        return (nil, "the relay cursor file was unreadable; kept it as \(aside), and the relay stream starts from now")
    }

    public func saveRelayCursor(_ cursor: RelayCursor) throws(StateError) {
        try create()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Three strings always encode.
        let bytes = (try? encoder.encode(cursor)) ?? Data()
        try AtomicFile.write(Array(bytes), to: relayCursorPath)
    }
}
