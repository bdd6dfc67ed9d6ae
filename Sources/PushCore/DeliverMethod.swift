/// `Deliver(s payload) -> s account` on `DaemonInterface.interface`, as the daemon answers it
/// and `gbnotifyctl deliver` reads it: a payload as a relay's `message` goes in; the account it
/// woke comes out (`Account.displayName`), or the `droppedError` whose message says why it woke
/// none.
public enum DeliverMethod {
    public static let member = "Deliver"
    public static let droppedError = "\(DaemonInterface.interface).Error.PayloadDropped"
}
