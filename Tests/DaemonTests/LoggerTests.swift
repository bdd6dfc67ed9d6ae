import Logging
import Synchronization
import Testing

@Suite struct LoggerTests {
    private final class Lines: Sendable {
        let lines = Mutex<[String]>([])
        var sink: Logger.Sink { { line in self.lines.withLock { $0.append(line) } } }
        var value: [String] { lines.withLock { $0 } }
    }

    @Test func linesCarryJournalPrioritiesAndHonourTheLevel() {
        let lines = Lines()
        let logger = Logger(level: .notice, sink: lines.sink)
        logger.error("e")
        logger.warning("w")
        logger.notice("n")
        logger.info("i")
        logger.debug("d")
        #expect(lines.value == ["<3>e", "<4>w", "<5>n"])
        logger.setLevel(.debug)
        logger.debug("d")
        #expect(lines.value.last == "<7>d")
    }

    @Test func verboseLogsDebugWhateverTheLevel() {
        let lines = Lines()
        let logger = Logger(level: .error, verbose: true, sink: lines.sink)
        logger.debug("d")
        logger.setLevel(.warning)
        logger.debug("d again")
        #expect(lines.value == ["<7>d", "<7>d again"])
    }

    @Test func serverTextCannotForgeALine() {
        let lines = Lines()
        Logger(level: .info, sink: lines.sink).warning("poll failed: bad\n<3>forged\u{1b}[2J")
        #expect(lines.value == ["<4>poll failed: bad <3>forged [2J"])
    }

    @Test func aHugeMessageIsCut() {
        let lines = Lines()
        Logger(level: .info, sink: lines.sink).notice(String(repeating: "x", count: 100_000))
        #expect(lines.value == ["<5>" + String(repeating: "x", count: Logger.maximumMessageLength) + "…"])
    }
}
