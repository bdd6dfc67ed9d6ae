import LocalTime
import Logging
import MainLoop
import PushCore
import Settings
import StateStore

/// The reload queue: reloads (SIGHUP, `Reload()`, the keyring changing, a snooze written) run one
/// after another, never interleaved at their suspension points, and the callers that asked while
/// one waited for its turn share it.
extension Supervisor {
    /// The config file and the keyring again, once the reload before is done, for every
    /// caller that asked until then: a peer's storm of `Reload()` calls is two reloads at most,
    /// not one registration per call that empties the accounts' write buckets.
    func reloadInTurn() async {
        let (waiters, problems) = await inTurn { supervisor in
            let waiters = supervisor.nextReloadWaiters ?? []
            supervisor.nextReloadWaiters = nil
            guard !supervisor.isStopped else { return (waiters, [String]()) }
            supervisor.logger.report(.reloading, to: supervisor.parts.events)
            let problems = [
                await supervisor.refreshSettings(), await supervisor.refreshNoise(),
                await supervisor.refreshAccounts(restartingEvery: true),
                await supervisor.refreshRelay(),
            ]
            return (waiters, problems.compactMap { $0 })
        }
        for waiter in waiters { waiter?.resume(returning: problems) }
    }

    /// The keyring changed (an item stored, changed or deleted, a collection unlocked): the
    /// accounts are read again; the config stays as it is.
    func keyringChanged() async {
        logger.debug("the keyring changed; reading the accounts again")
        await inTurn { supervisor in
            _ = await supervisor.refreshAccounts()
            _ = await supervisor.refreshRelay()
        }
    }

    // MARK: - Reloading

    /// Runs `work` after every reload queued before it, so two reloads never interleave at their
    /// suspension points.
    func inTurn<Result: Sendable>(
        _ work: @escaping @Sendable @LoopActor (Supervisor) async -> Result
    ) async -> Result {
        let previous = lastReload
        let turn = Task { await previous?.value; return await work(self) }
        lastReload = Task { _ = await turn.value }
        return await turn.value
    }

    /// The config file again; nil when it was applied, else why it was not.
    private func refreshSettings() async -> String? {
        do {
            settings = try sources.loadSettings()
            logger.setLevel(settings.config.logLevel)
            for warning in settings.config.warnings { logger.warning("\(configPath): \(warning)") }
            await desktop(.config(settings.config))
            return nil
        } catch {
            logger.error("\(error); keeping the settings in use")
            return "\(error); kept the settings in use"
        }
    }

    /// Every account snoozed until `end`, or no longer (nil), as `gbnotifyctl snooze` does it:
    /// written to the state directory, then read again, so the desktop and `status` follow.
    func snooze(until end: Int64?) async {
        let now = Int64(wallClock.now.timeIntervalSince1970)
        do {
            let warning = try await state.updateNoise { record in
                if let end {
                    record.snooze(nil, until: end, now: now)
                } else {
                    _ = record.endSnooze(nil, now: now)
                }
            }
            if let warning { logger.warning(warning) }
        } catch {
            logger.error("cannot write the snooze: \(error)")
            return
        }
        logger.info(end.map { "snoozed every account until \(Hold.localTime($0, at: now, zone: SystemZone.offsets))" } ?? "snooze ended")
        parts.events.tell(.snoozed(until: end))
        await inTurn { supervisor in _ = await supervisor.refreshNoise() }
    }

    /// The snoozes in the state directory again (`gbnotifyctl snooze` wrote them, then asked for
    /// a reload), for the desktop stage; nil when they were read, else why not.
    func refreshNoise() async -> String? {
        do {
            let (record, warning) = try await state.loadNoise()
            if let warning { logger.warning(warning) }
            snoozes = record.snoozes
            await desktop(.snoozes(record.snoozes))
            return nil
        } catch {
            logger.error("cannot read the snoozes: \(error); keeping the ones in use")
            return "cannot read the snoozes: \(error); kept the ones in use"
        }
    }
}
