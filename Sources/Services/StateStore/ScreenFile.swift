import PushCore

/// `notifications.json` in the state directory: the daemon's notifications on screen, so that
/// a restarted daemon (kill -9 included) takes them over rather than adding new ones beside
/// them. Removed on a clean stop, which withdraws them.
extension StateDirectory {
    var screenFile: JSONStateFile<ScreenBook.Saved> {
        // A few notifications of at most 50 rows each; far past that is not ours.
        JSONStateFile(path: path + "/notifications.json", limit: 1 << 20, afresh: "no notification is taken over")
    }

    public func loadScreen() throws(StateError) -> (saved: ScreenBook.Saved?, warning: String?) {
        let (value, warning) = try screenFile.load()
        return (value, warning)
    }

    public func saveScreen(_ saved: ScreenBook.Saved) throws(StateError) {
        try create()
        try screenFile.save(saved)
    }

    public func removeScreen() throws(StateError) {
        try screenFile.remove()
    }
}
