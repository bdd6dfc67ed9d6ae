/// The daemon's desktop interface, beside `DaemonInterface.interface` on the same object:
/// `Test()` shows a sample notification; `Open(s account, s path, s activation_token) -> s`
/// opens what a click on a notice of `account` with `path` would (an empty account means the
/// first account, an empty or unroutable path its inbox) and answers with what it launched.
public enum DesktopInterface {
    public static let interface = "org.gitbay.Notify1.Desktop"
    /// No notification server on the bus, so `Test()` has nowhere to show anything.
    public static let noServerError = "org.gitbay.Notify1.Desktop.Error.NoNotificationServer"
    /// The notification server refused `Test()`'s notification.
    public static let refusedError = "org.gitbay.Notify1.Desktop.Error.Refused"
    /// `Open` named no account in the keyring.
    public static let noSuchAccountError = "org.gitbay.Notify1.Desktop.Error.NoSuchAccount"
}
