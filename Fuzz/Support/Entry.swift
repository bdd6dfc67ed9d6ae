// Linked into every fuzz target next to the target's own file, which defines `fuzz(_:)`.

/// libFuzzer calls this once per input; the bytes are valid only during the call.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzz(UnsafeBufferPointer(start: data, count: size))
    return 0
}

/// Stops the run when a property the parsers promise does not hold. `fatalError` (unlike
/// `precondition` in an optimised build) prints the message; libFuzzer then saves the input.
func invariant(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("invariant broken: \(message())") }
}

/// Text without control characters (newlines and terminal escapes included): what every error
/// and server message must be before it reaches a log line or a notification.
func isOneLine(_ text: String) -> Bool {
    !text.unicodeScalars.contains { $0.properties.generalCategory == .control }
}
