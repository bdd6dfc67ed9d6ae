import PushCore

/// `WakeUp(json:)`, as a `Deliver` call hands it bytes: a wake-up or a `PayloadError`, never a
/// crash; anything over the size cap is refused before it is parsed; what is accepted names an
/// account in normalised form, and resolving it among accounts either finds that one or says
/// why not in one line.
func fuzz(_ input: UnsafeBufferPointer<UInt8>) {
    let wakeUp: WakeUp
    do {
        wakeUp = try WakeUp(json: input)
    } catch {
        invariant(isOneLine(error.description), "the error is not one line: \(error)")
        if case .tooLarge(let byteCount) = error {
            invariant(input.count > WakeUp.maximumSize, "\(input.count) bytes refused as too large")
            invariant(byteCount == input.count, "tooLarge reports \(byteCount) bytes for \(input.count)")
        } else {
            invariant(input.count <= WakeUp.maximumSize, "\(input.count) bytes not refused as too large: \(error)")
        }
        return
    }
    let again = try? GitbayInstance(parsing: wakeUp.instance.url, allowInsecureHTTP: true)
    invariant(again == wakeUp.instance, "instance \(wakeUp.instance.url) does not re-parse to itself")
    invariant(!wakeUp.user.isEmpty, "a wake-up without a user was accepted")
    do {
        let account = try wakeUp.account(among: accounts)
        invariant(account.instance == wakeUp.instance && account.username == wakeUp.user, "woke \(account.id) for another")
    } catch {
        invariant(isOneLine(error.description) && error.description.count < 400, "the error is not one short line: \(error)")
    }
}

private let accounts = [
    try! Account(instance: GitbayInstance(parsing: "https://gitbay.org"), username: "cmc"),
    try! Account(instance: GitbayInstance(parsing: "http://127.0.0.1:8080", allowInsecureHTTP: true), username: "cmc"),
]
