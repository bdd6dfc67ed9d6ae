extension MainLoop {
    /// Returns once `delay` has passed (counting a suspend); throws `CancellationError` when the
    /// task is cancelled first. Unlike `Task.sleep`, whose cancelled timer stays in the heap and
    /// wakes the loop for nothing when it is due, a cancelled sleep takes its alarm out: a wait
    /// that going offline or a stop cut short leaves the loop asleep.
    public func sleep(for delay: Duration) async throws {
        let rung = OneAnswer<Void>()
        let alarm = alarm(after: delay) { rung.answer() }
        do {
            try await withTaskCancellationHandler {
                try await rung.value()
            } onCancel: {
                rung.answer(.failure(CancellationError()))
            }
        } catch {
            cancelAlarm(alarm)
            throw error
        }
    }
}
