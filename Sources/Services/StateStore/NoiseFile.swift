import PushCore

/// `noise.json` in the state directory: what gbnotify muted and the snoozes in force
/// (`NoiseRecord`). `gbnotifyctl` writes it under the directory's lock, the daemon reads it at
/// start and on every reload, so a snooze outlives a restart.
extension StateDirectory {
    var noiseFile: JSONStateFile<NoiseRecord> {
        // A few hundred bytes a mute, at most `maximumMutes` of them.
        JSONStateFile(path: path + "/noise.json", limit: 1 << 20, afresh: "no repository is listed as muted and no snooze holds")
    }

    /// The record; an empty one when there is none. One that does not parse, or lies outside the
    /// record's bounds, is set aside: the mutes stay on the servers, only the list of them is lost.
    public func loadNoise() throws(StateError) -> (record: NoiseRecord, warning: String?) {
        let (record, warning) = try noiseFile.load(\.isUsable)
        return (record ?? NoiseRecord(), warning)
    }

    /// Reads, changes and writes the record under the directory's lock.
    @discardableResult
    public func updateNoise<Result>(
        _ change: (inout NoiseRecord) -> Result
    ) throws(StateError) -> (result: Result, warning: String?) {
        try update(noiseFile, loading: loadNoise, change)
    }
}
