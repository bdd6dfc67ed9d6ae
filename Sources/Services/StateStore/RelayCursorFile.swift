import PushCore

/// `relay-cursor.json` in the state directory: where the relay stream resumes after a restart.
/// Only the daemon writes it, after each relay message it handled, so a crash leaves either the
/// old position or the new one.
extension StateDirectory {
    var relayCursorFile: JSONStateFile<RelayCursor> {
        JSONStateFile(path: path + "/relay-cursor.json", limit: 4096, afresh: "the relay stream starts from now")
    }

    /// The saved cursor, nil when there is none. One that does not parse is set aside: the
    /// stream then starts from now, and the accounts' polls, which never replay what they
    /// already showed, pick up anything missed.
    public func loadRelayCursor() throws(StateError) -> (cursor: RelayCursor?, warning: String?) {
        let (value, warning) = try relayCursorFile.load { RelayMessage.isValidID($0.lastMessageID) }
        return (value, warning)
    }

    public func saveRelayCursor(_ cursor: RelayCursor) throws(StateError) {
        try create()
        try relayCursorFile.save(cursor)
    }
}
