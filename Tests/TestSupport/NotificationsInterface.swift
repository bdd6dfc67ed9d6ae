/// `org.freedesktop.Notifications` as a notification server introspects it: for the stand-in
/// servers of the tests and of `gbnotify-bench`, which answer in place of dunst.
public enum NotificationsInterface {
    public static let name = "org.freedesktop.Notifications"
    public static let path = "/org/freedesktop/Notifications"

    public static let introspection = """
        <interface name="org.freedesktop.Notifications">
          <method name="GetCapabilities"><arg direction="out" type="as"/></method>
          <method name="Notify">
            <arg direction="in" type="s"/><arg direction="in" type="u"/><arg direction="in" type="s"/>
            <arg direction="in" type="s"/><arg direction="in" type="s"/><arg direction="in" type="as"/>
            <arg direction="in" type="a{sv}"/><arg direction="in" type="i"/><arg direction="out" type="u"/>
          </method>
          <method name="CloseNotification"><arg direction="in" type="u"/></method>
          <method name="GetServerInformation">
            <arg direction="out" type="s"/><arg direction="out" type="s"/>
            <arg direction="out" type="s"/><arg direction="out" type="s"/>
          </method>
          <signal name="NotificationClosed"><arg type="u"/><arg type="u"/></signal>
        </interface>
        """
}
