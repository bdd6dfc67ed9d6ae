/// The flat fills of gbnotify's icon, which keep their exact colour on screen at any size.
enum IconColours {
    /// The installed icon's fill (`DesktopData.gbnotify`).
    static let installed = "#1F7A4D"
    /// The packaged icon's fill, as in the source tree.
    static let packaged = "#2F5D8A"
    /// The unread badge's red, the same in both.
    static let badge = "#E8563F"
}
