/// `Deliver(s payload) -> s outcome` on `DaemonInterface.interface`, as the daemon answers it
/// and `gbnotifyctl deliver` reads it: a payload as a relay's `message` goes in; what became of
/// it comes out, or the `droppedError` whose message says why it did nothing.
public enum DeliverMethod {
    public static let member = "Deliver"
    public static let droppedError = "\(DaemonInterface.interface).Error.PayloadDropped"

    public enum Reply: String, Sendable {
        case shown
        case alreadyShown = "already_shown"
        case wokeUp = "woke_up"
    }
}
