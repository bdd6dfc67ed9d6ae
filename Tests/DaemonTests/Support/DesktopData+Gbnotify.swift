import DesktopSuites
import Foundation
import PushCore
import TestSupport
import Testing

extension DesktopData {
    /// gbnotify as a package installs it (`make install` under a prefix): its desktop entry (for
    /// Plasma's badge and the `desktop-entry` hint) and its icon in the hicolor theme. The icon
    /// is the packaged one recoloured (`IconColours`), so a picture of a notification tells the
    /// installed file from the source tree's, which a gbnotifyd that finds none installed falls
    /// back to.
    static let gbnotify = DesktopData { data in
        let packaging = URL(fileURLWithPath: Standin.packageRoot).appending(path: "packaging")
        let icons = data.appending(path: AppIcon.themePath).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: icons, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: data.appending(path: "applications"), withIntermediateDirectories: true)
        let icon = try String(contentsOf: packaging.appending(path: "gbnotify.svg"), encoding: .utf8)
        try #require(icon.localizedCaseInsensitiveContains(IconColours.packaged), "the packaged icon's blue changed")
        try icon.replacingOccurrences(of: IconColours.packaged, with: IconColours.installed, options: .caseInsensitive)
            .write(to: data.appending(path: AppIcon.themePath), atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(
            at: packaging.appending(path: "gbnotify.desktop"), to: data.appending(path: "applications/gbnotify.desktop"))
    }
}

extension DesktopData {
    /// `gbnotify`'s files, and the entry's command in `bin/` (which the session puts first on
    /// its PATH: `SharedDesktop`) as a package puts it on PATH: GNOME Shell resolves a
    /// `desktop-entry` only when the entry's `Exec` is on its PATH, and GNOME Shell 48 withdraws
    /// a resolved application's notifications as their sender leaves the bus. The command is a
    /// script that runs the built gbnotifyctl, readable from a desktop run from the Debian 13 root.
    static let gbnotifyWithItsCommand = DesktopData { data in
        try gbnotify.install(data)
        let bin = data.appending(path: "bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let command = bin.appending(path: "gbnotifyctl")
        try "#!/bin/sh\nexec '\(Program.built("gbnotifyctl"))' \"$@\"\n".write(to: command, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: command.path)
    }
}
