/// The daemon's own name on the session bus, which `gbnotifyctl` calls.
public enum DaemonInterface {
    public static let busName = "org.gitbay.Notify1"
    public static let objectPath = "/org/gitbay/Notify1"
    public static let interface = "org.gitbay.Notify1"
}
