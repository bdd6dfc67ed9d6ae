import PushCore

/// `DeliveredPayload(json:)` and `PushPayload(json:)`, as a `Deliver` call or a relay message
/// hands them bytes: a notice, a wake-up or a `PayloadError`, never a crash; anything over the
/// size cap is refused before it is parsed; the two parsers agree on what a notice is; what is
/// accepted carries everything routing needs, in normalised form.
func fuzz(_ input: UnsafeBufferPointer<UInt8>) {
    let delivered = parse { () throws(PayloadError) in try DeliveredPayload(json: input) }
    let notice = parse { () throws(PayloadError) in try PushPayload(json: input) }

    switch (delivered, notice) {
    case (.success(.notice(let fromDelivered)), .success(let payload)):
        invariant(fromDelivered == payload, "the two parsers read different notices")
        check(payload.instance)
        invariant(!payload.user.isEmpty && !payload.path.isEmpty, "an empty user or path was accepted")
        invariant((payload.badge ?? 0) >= 0, "negative badge \(payload.badge ?? 0) accepted")
    case (.success(.wakeUp(let instance, let user)), .failure(.missingField("path"))):
        check(instance)
        invariant(!user.isEmpty, "a wake-up without a user was accepted")
    case (.failure(let error), .failure):
        invariant(isOneLine(error.description), "the error is not one line: \(error)")
    default:
        fatalError("invariant broken: the parsers disagree: \(delivered) and \(notice)")
    }
    for case .failure(let error) in [delivered.map { _ in () }, notice.map { _ in () }] {
        if case .tooLarge(let byteCount) = error {
            invariant(input.count > PushPayload.maximumSize, "\(input.count) bytes refused as too large")
            invariant(byteCount == input.count, "tooLarge reports \(byteCount) bytes for \(input.count)")
        } else {
            invariant(input.count <= PushPayload.maximumSize, "\(input.count) bytes not refused as too large: \(error)")
        }
    }
}

private func parse<Value>(_ body: () throws(PayloadError) -> Value) -> Result<Value, PayloadError> {
    do { return .success(try body()) } catch { return .failure(error) }
}

private func check(_ instance: GitbayInstance) {
    let again = try? GitbayInstance(parsing: instance.url, allowInsecureHTTP: true)
    invariant(again == instance, "instance \(instance.url) does not re-parse to itself")
}
