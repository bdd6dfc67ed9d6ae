import PushCore

/// The SSH side: `SSHAnswer` on every ssh answer the bytes can make (the exit status from the
/// first byte, standard output and standard error split at the first NUL), and `ShellWords` on
/// the same bytes as words. A token is accepted only as `gb_` and token characters, under the
/// name asked for; every failure is one harmless line; and whatever the words, `split` reads
/// back exactly what `join` wrote, so no name can smuggle another argument to the server.
func fuzz(_ input: UnsafeBufferPointer<UInt8>) {
    guard let first = input.first else { return }
    let rest = Array(input.dropFirst())
    let cut = rest.firstIndex(of: 0) ?? rest.endIndex
    let stdout = Array(rest[..<cut])
    let stderr = cut < rest.endIndex ? Array(rest[(cut + 1)...]) : []
    let termination: SSHOutcome.Termination = switch first % 8 {
    case 0, 1, 2: .exited(0)
    case 3: .exited(255)
    case 4: .exited(Int32(first >> 3))
    case 5: .signalled(9)
    case 6: .timedOut(seconds: 30)
    default: .exited(4)
    }
    let outcome = SSHOutcome(termination: termination, stdout: stdout, stdoutOverflowed: first == 0xFF, stderr: stderr)

    do {
        let minted = try SSHAnswer.mintedToken(outcome, name: name, from: remote)
        invariant(SSHAnswer.isGitbayToken(minted.token.secret), "accepted a token that is no gitbay token")
        invariant(minted.name == name, "accepted another name")
        invariant(termination == .exited(0) && first != 0xFF, "accepted a failed or overflowed run")
    } catch {
        check(error)
    }
    do {
        try SSHAnswer.revoked(outcome, name: name, from: remote)
    } catch {
        check(error)
    }
    do {
        _ = try SSHAnswer.whoami(outcome, from: remote)
    } catch {
        check(error)
    }

    // The bytes as words (split at NULs), quoted and read back.
    let words = rest.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    let joined = ShellWords.join(words)
    guard let back = try? ShellWords.split(joined) else { return invariant(false, "split refused what join wrote: \(joined.debugDescription)") }
    invariant(back == words, "split(join(words)) is \(back), not \(words)")
    // And the bytes as shell text: whatever it splits into joins and splits back the same.
    if let split = try? ShellWords.split(String(decoding: rest, as: UTF8.self)) {
        invariant((try? ShellWords.split(ShellWords.join(split))) == split, "a second round changed \(split)")
    }
}

private func check(_ failure: SSHFailure) {
    let text = failure.description
    invariant(isOneLine(text), "the error is not one line: \(text.debugDescription)")
    invariant(text.count <= 1200, "the error is \(text.count) characters")
}

private let name = "gbnotifyd on fuzz 0a1b2c"
private let remote = try! SSHRemote(user: "git", host: "gitbay.org", port: 2222)
