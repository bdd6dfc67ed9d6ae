import Foundation
import GitbaySSH
import Glibc
import PushCore
import Spawn
import Testing
import TestSupport
import MainLoop

@Suite struct ChildProcessTests {
    @Test func capturesBothStreamsAndTheExitStatus() async throws {
        let outcome = try await ChildProcess.run(
            ["sh", "-c", "printf out; printf err >&2; exit 3"], stdoutLimit: 100, stderrLimit: 100, deadline: .seconds(60))
        #expect(outcome.termination == .exited(3))
        #expect(outcome.stdout == Array("out".utf8))
        #expect(!outcome.stdoutOverflowed)
        #expect(outcome.stderr == Array("err".utf8))
    }

    @Test func standardInputIsNeverATerminal() async throws {
        let outcome = try await ChildProcess.run(["sh", "-c", "cat; test -t 0 || echo not-a-tty"], stdoutLimit: 100, stderrLimit: 100, deadline: .seconds(60))
        #expect(String(decoding: outcome.stdout, as: UTF8.self) == "not-a-tty\n")
    }

    @Test func stopsReadingAndKillsAtTheOutputBound() async throws {
        let outcome = try await ChildProcess.run(["yes"], stdoutLimit: 1000, stderrLimit: 100, deadline: .seconds(60))
        #expect(outcome.stdoutOverflowed)
        #expect(outcome.stdout.count == 1000)
        #expect(outcome.termination == .signalled(SIGKILL))
    }

    @Test func keepsTheEndOfStandardError() async throws {
        let outcome = try await ChildProcess.run(
            ["sh", "-c", "for i in $(seq 1 2000); do echo line $i >&2; done"], stdoutLimit: 100, stderrLimit: 64, deadline: .seconds(60))
        #expect(outcome.stderr.count == 64)
        #expect(String(decoding: outcome.stderr, as: UTF8.self).hasSuffix("line 2000\n"))
    }

    @Test func theDeadlineKillsTheChildOnTheGivenClock() async throws {
        let clock = ManualClock()
        let marker = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString)")
        let run = Task {
            try await ChildProcess.run(
                ["sh", "-c", "echo $$ > \(marker.path); exec sleep 600"], stdoutLimit: 100, stderrLimit: 100,
                deadline: .seconds(30), timeline: Timeline(clock))
        }
        try await clock.waitForSleepers(1)
        // The child's pid is read once it has written it: the deadline, on the manual clock,
        // is armed before the shell has run at all, and killed first it would write nothing.
        let pid = try await Self.pid(writtenTo: marker)
        clock.advance(by: .seconds(29))
        #expect(clock.pendingSleeps == 1)
        clock.advance(by: .seconds(1))
        let outcome = try await run.value
        #expect(outcome.termination == .timedOut)
        #expect(kill(pid, 0) == -1 && errno == ESRCH, "the child lives on")
        try? FileManager.default.removeItem(at: marker)
    }

    /// The pid a child wrote to `marker` with its newline, once it has (within a minute).
    private static func pid(writtenTo marker: URL) async throws -> pid_t {
        try await withDeadline(.seconds(60), "the child to write its pid") {
            while true {
                if let text = try? String(contentsOf: marker, encoding: .utf8), text.hasSuffix("\n"),
                   let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
                    return pid
                }
                try await Task.sleep(for: .milliseconds(10))
            }
        }
    }

    @Test func cancellingTheCallerKillsTheChild() async throws {
        let clock = ManualClock()
        let run = Task {
            try await ChildProcess.run(["sleep", "600"], stdoutLimit: 100, stderrLimit: 100, deadline: .seconds(30), timeline: Timeline(clock))
        }
        try await clock.waitForSleepers(1)
        run.cancel()
        #expect(try await run.value.termination == .cancelled)
    }

    @Test func aMissingProgramIsENOENT() async {
        do {
            _ = try await ChildProcess.run(["gbnotify-no-such-program"], stdoutLimit: 1, stderrLimit: 1, deadline: .seconds(1))
            Issue.record("it started")
        } catch {
            #expect(error.code == ENOENT)
        }
    }
}

/// GitbaySSH with the real ssh against the real sshd and the stand-in's SSH front.
@Suite struct GitbaySSHDeadlineTests {
    @Test func noAnswerWithinThirtySecondsIsATimeoutAndSshIsKilled() async throws {
        let standin = try await Standin.start()
        try await standin.addUser("cmc")
        let sshd = try await OpenSSHServer.start()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gitbay-ssh-\(UUID().uuidString)")
        let key = try await SSHKey.make(in: directory, named: "key")
        try sshd.authorize(key, as: "cmc", on: standin)
        let knownHosts = directory.appendingPathComponent("known_hosts")
        try Data((sshd.knownHostsLine + "\n").utf8).write(to: knownHosts)
        try await standin.addSSHFault(.stall)

        let clock = ManualClock()
        let remote = try SSHRemote(
            parsing: sshd.remote,
            options: ["-F", "none", "-i", key.privateKeyPath, "-o", "IdentitiesOnly=yes", "-o", "UserKnownHostsFile=\(knownHosts.path)"])
        let ssh = GitbaySSH(remote: remote, timeline: Timeline(clock))
        let minting = Task { () async throws(SSHFailure) -> MintedToken in try await ssh.createToken(name: "n") }
        try await clock.waitForSleepers(1)
        // The front has the command, and answers nothing.
        while try await standin.sshCommands().isEmpty { try await Task.sleep(for: .milliseconds(50)) }
        clock.advance(by: GitbaySSH.deadline)
        await #expect(throws: SSHFailure.timedOut(remote, seconds: 30)) { try await minting.value }
        await sshd.stop()
        await standin.stop()
        try? FileManager.default.removeItem(at: directory)
    }
}
