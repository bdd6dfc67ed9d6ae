import DesktopSuites
import Foundation
import TestSupport

extension DesktopData {
    /// The rig's own desktop entry, for Plasma's badge and the `desktop-entry` hint: Exec=true,
    /// because GNOME resolves an entry only when its Exec is on the PATH.
    static let rigEntry = DesktopData { data in
        try FileManager.default.createDirectory(at: data.appending(path: "applications"), withIntermediateDirectories: true)
        try """
            [Desktop Entry]
            Type=Application
            Name=Rig Test
            Exec=true
            Icon=dialog-information
            """.write(to: data.appending(path: "applications/\(rigEntryName).desktop"), atomically: true, encoding: .utf8)
    }

    /// `rigEntry`'s name, as a `desktop-entry` hint and a launcher badge give it.
    static let rigEntryName = "gbnotify-rig"
}
