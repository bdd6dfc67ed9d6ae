import PushCore

/// `GitbayCLIConfig.parse`, the reader of the gitbay CLI's config.toml: a config or an error that
/// is one line and names a line of the input; every instance has a host ssh cannot take for an
/// option, a port in range, and comes from a table header the input has.
func fuzz(_ input: UnsafeBufferPointer<UInt8>) {
    let text = String(decoding: input, as: UTF8.self)
    // By bytes: "\r\n" is one Character.
    let lines = input.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).count
    let config: GitbayCLIConfig
    do {
        config = try GitbayCLIConfig.parse(text)
    } catch {
        invariant(isOneLine(error.description), "the error is not one line: \(error.description.debugDescription)")
        invariant(error.description.count <= 400, "the error is \(error.description.count) characters")
        invariant((0...lines).contains(error.line), "line \(error.line) of \(lines)")
        return
    }
    for instance in config.instances {
        invariant(!instance.remote.host.isEmpty && !instance.remote.host.hasPrefix("-"), "host \(instance.remote.host)")
        invariant(!instance.remote.user.hasPrefix("-"), "user \(instance.remote.user)")
        invariant(instance.remote.port.map { (1...65535).contains($0) } ?? true, "port \(String(describing: instance.remote.port))")
        invariant((1...lines).contains(instance.line), "instance line \(instance.line) of \(lines)")
        // What is kept in the keyring reads back to the same remote.
        let mint = SSHMint(tokenName: "n", remote: instance.remote)
        invariant(SSHMint(attributes: mint.attributes) == mint, "the keyring record of \(instance.remote) does not read back")
    }
}
