import PushCore

/// `Config.parse`: a config or an error that names the line and is one line of text; every
/// value accepted lies in its documented range; and the program a click runs never comes from
/// the notice (the first word of `terminal-command` is fixed text).
func fuzz(_ input: UnsafeBufferPointer<UInt8>) {
    let config: Config
    do {
        config = try Config.parse(String(decoding: input, as: UTF8.self))
    } catch {
        invariant(isOneLine(error.description), "the error is not one line: \(error.description.debugDescription)")
        invariant(error.description.count <= 600, "the error is \(error.description.count) characters")
        return
    }
    invariant((10...3600).contains(config.pollIntervalSeconds), "poll-interval \(config.pollIntervalSeconds)")
    invariant((30...86400).contains(config.backoffCapSeconds), "backoff-cap \(config.backoffCapSeconds)")
    invariant((30...86400).contains(config.relayPollIntervalSeconds), "relay-poll-interval \(config.relayPollIntervalSeconds)")
    invariant(config.caFile.map { $0.hasPrefix("/") } ?? true, "ca-file \(config.caFile ?? "") is relative")
    if let relay = config.relayURL {
        invariant(relay.scheme == "https" || relay.isLoopback, "relay-url \(relay.url) is plain http to another host")
    }
    invariant(config.maxNotifications.map { (1...50).contains($0) } ?? true, "max-notifications \(String(describing: config.maxNotifications))")
    invariant(config.warnings.allSatisfy(isOneLine), "a warning is not one line: \(config.warnings)")
    if let terminal = config.terminal {
        invariant(!terminal.isEmpty && !terminal.contains(""), "terminal \(terminal)")
    }

    let argvs = [(issue, alice), (build, bob)].map { destination, account in
        config.terminalArgv(for: PushTarget(account: account, destination: destination), viewer: viewer) { _ in false }
    }
    let programIndex = config.terminal?.count ?? Config.fallbackTerminals.last!.count
    invariant(argvs[0][programIndex] == argvs[1][programIndex], "the notice chose the program: \(argvs)")
    // A summary's inbox view: the viewer the caller found, whatever the template.
    let inbox = config.terminalArgv(for: PushTarget(account: alice, destination: nil), viewer: viewer) { _ in false }
    invariant(Array(inbox[programIndex...]) == [viewer, "inbox", alice.reference], "the inbox view is \(inbox)")
}

private let issue = NotificationDestination(path: "krz/gitbay/issues/12")!
private let build = NotificationDestination(path: "other/repo/builds/9")!
private let alice = try! Account(instance: GitbayInstance(parsing: "https://gitbay.org"), username: "alice")
private let viewer = "/opt/gbnotify/bin/gbnotifyctl"
private let bob = try! Account(instance: GitbayInstance(parsing: "https://example.com:8443/git"), username: "bob")
