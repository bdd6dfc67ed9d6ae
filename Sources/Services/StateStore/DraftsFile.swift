import PushCore

/// `drafts.json` in the state directory: the replies that could not be posted (`DraftRecord`).
/// `gbnotifyctl` writes it under the directory's lock, atomically like every state file.
extension StateDirectory {
    var draftsFile: JSONStateFile<DraftRecord> {
        // Each draft up to 64 KiB, which JSON's escapes can make six times as long.
        JSONStateFile(
            path: path + "/drafts.json", limit: DraftRecord.maximumDrafts * DraftRecord.maximumTextBytes * 6 + (1 << 20),
            afresh: "no reply is kept as a draft")
    }

    /// The kept drafts; none when there is no file. One that does not parse is set aside (kept
    /// under another name, its texts still readable there).
    public func loadDrafts() throws(StateError) -> (record: DraftRecord, warning: String?) {
        let (record, warning) = try draftsFile.load(\.isUsable)
        return (record ?? DraftRecord(), warning)
    }

    /// Reads, changes and writes the record under the directory's lock.
    @discardableResult
    public func updateDrafts<Result>(
        _ change: (inout DraftRecord) -> Result
    ) throws(StateError) -> (result: Result, warning: String?) {
        try update(draftsFile, loading: loadDrafts, change)
    }
}
