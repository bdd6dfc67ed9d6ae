import PushCore

/// `NotificationDestination(path:)`: what it accepts is exactly `OWNER/REPO/KIND/N` in its one
/// spelling, so the path rebuilt from the parts is the input, byte for byte, and so is the
/// link a click opens.
func fuzz(_ input: UnsafeBufferPointer<UInt8>) {
    let text = String(decoding: input, as: UTF8.self)
    guard let destination = NotificationDestination(path: text) else { return }
    invariant(destination.path == text, "\(destination.path) rebuilt from \(text.debugDescription)")
    invariant(destination.number > 0, "number \(destination.number) accepted")
    for name in [destination.owner, destination.repo] {
        invariant(!name.hasPrefix("-") && !name.hasPrefix("."), "name \(name.debugDescription) accepted")
    }
    invariant(Links.webURL(for: destination, on: instance) == "https://gitbay.org/" + text, "link differs")
}

private let instance = try! GitbayInstance(parsing: "https://gitbay.org")
