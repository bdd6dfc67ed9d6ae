import Foundation
import Glibc
@testable import TestSupport
import Testing

/// The lifeline that keeps the tests' children from outliving them (`LifelineProcess`, and
/// `scripts/desktop-session --lifeline` for the sessions `PrivateSession` and `DesktopSession`
/// start): the lifeline's close stops a session and everything in it; a child that does not stop
/// is killed with its whole process group; and what a child leaves in its group ends with it.
@Suite(.timeLimit(.minutes(2)))
struct LifelineRigTests {
    /// The kernel closes the lifeline when the test process dies, as `stop()` does here: the
    /// script cannot tell the two apart.
    @Test func aSessionWhoseLifelineClosesStopsEverythingInItAndRemovesItsDirectory() async throws {
        let argv = ["\(Standin.packageRoot)/scripts/desktop-session", "--lifeline", "--keyring=kwallet", "--no-notifications",
                    "--", "sh", "-c", #"echo "$PRIVATE_DESKTOP_SESSION"; echo "$PRIVATE_DESKTOP_KEYRING_PROGRAM"; exec sleep infinity"#]
        let session = try await offCooperativePool {
            try LifelineProcess(argv, readyLines: 2, readyTimeout: .seconds(90))
        }
        let directory = session.readyLines[0], kwalletd = session.readyLines[1]
        #expect(["kwalletd6", "kwalletd5"].contains(kwalletd))
        let members = Self.processes(carrying: "PRIVATE_DESKTOP_SESSION=\(directory)")
        #expect(Set(members.map(\.name)).isSuperset(of: ["dbus-daemon", "Xvfb", kwalletd, "sleep"]), "\(members)")

        let started = ContinuousClock.now
        await session.stop()
        #expect(ContinuousClock.now - started < LifelineProcess.stopGrace, "it stopped by itself, before the group was killed")
        for member in members {
            #expect(try await Self.hasEnded(member.pid), "\(member.name) \(member.pid) outlived its session")
        }
        #expect(!FileManager.default.fileExists(atPath: directory))
    }

    @Test func aChildThatIgnoresItsLifelineIsKilledWithItsWholeGroup() async throws {
        let child = try await offCooperativePool {
            try LifelineProcess(["sh", "-c", "sleep 600 & echo $!; exec sleep 600"], readyLines: 1, readyTimeout: .seconds(30))
        }
        let background = try #require(pid_t(child.readyLines[0]))
        await child.stop(grace: .milliseconds(100))
        #expect(try await Self.hasEnded(background))
    }

    @Test func whatAChildLeavesInItsProcessGroupEndsWithIt() async throws {
        let child = try LifelineProcess(["sh", "-c", "sleep 600 & echo $!"])
        #expect(await child.finish() == 0)
        let background = try #require(pid_t(child.output.trimmingCharacters(in: .whitespacesAndNewlines)), "\(child.output)")
        #expect(try await Self.hasEnded(background))
    }

    /// Every process whose environment holds `variable` (NAME=value), with its name.
    private static func processes(carrying variable: String) -> [(pid: pid_t, name: String)] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry in
            guard let pid = pid_t(entry),
                  let environment = FileManager.default.contents(atPath: "/proc/\(entry)/environ"),
                  environment.split(separator: 0).contains(where: { $0.elementsEqual(variable.utf8) }),
                  let name = try? String(contentsOfFile: "/proc/\(entry)/comm", encoding: .utf8)
            else { return nil }
            return (pid, name.trimmingCharacters(in: .newlines))
        }
    }

    /// Whether `pid` has ended (gone, or a zombie no one has reaped yet) within 10 s: nothing
    /// tells this process of the end of a process that is not its child, so it looks every 10 ms.
    private static func hasEnded(_ pid: pid_t) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let state = stat.split(separator: ")").last?.split(separator: " ").first, state != "Z"
            else { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return false
    }
}
