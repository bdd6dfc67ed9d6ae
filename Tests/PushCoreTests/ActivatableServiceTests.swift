import PushCore
import Testing

@Suite struct ActivatableServiceTests {
    static let mako = """
        [D-BUS Service]
        Name=org.freedesktop.Notifications
        Exec=/usr/bin/mako
        """

    @Test func aServiceFileNamesTheProgramTheBusStarts() {
        let service = ActivatableService(file: "fr.emersion.mako.service", contents: Self.mako, offering: "org.freedesktop.Notifications")
        #expect(service == ActivatableService(file: "fr.emersion.mako.service", program: "mako"))
        #expect(service?.description == "mako (fr.emersion.mako.service)")
        // MATE's file starts its program with arguments.
        let mate = ActivatableService(file: "org.freedesktop.mate.Notifications.service", contents: """
            [D-BUS Service]
            Name=org.freedesktop.Notifications
            Exec=/usr/libexec/mate-notification-daemon/mate-notification-daemon --replace
            """, offering: "org.freedesktop.Notifications")
        #expect(mate?.program == "mate-notification-daemon")
    }

    @Test func aFileForAnotherNameOrNotAServiceIsNone() {
        #expect(ActivatableService(file: "a.service", contents: Self.mako, offering: "org.kde.StatusNotifierWatcher") == nil)
        #expect(ActivatableService(file: "a.service", contents: "[Desktop Entry]\nName=org.freedesktop.Notifications\nExec=/usr/bin/mako",
                                   offering: "org.freedesktop.Notifications") == nil)
        #expect(ActivatableService(file: "a.service", contents: "[D-BUS Service]\nName=org.freedesktop.Notifications\n",
                                   offering: "org.freedesktop.Notifications") == nil, "no Exec line")
        #expect(ActivatableService(file: "a.service", contents: "\u{1}\u{2}binary", offering: "org.freedesktop.Notifications") == nil)
    }

    @Test func theBusLooksInTheUsersDataDirectoryFirstThenTheSystems() {
        #expect(ActivatableService.directories(environment: ["HOME": "/home/ana"]) == [
            "/home/ana/.local/share/dbus-1/services", "/usr/local/share/dbus-1/services", "/usr/share/dbus-1/services",
        ])
        #expect(ActivatableService.directories(environment: [
            "XDG_DATA_HOME": "/data", "XDG_DATA_DIRS": "/opt/share:relative:/usr/share", "HOME": "/home/ana",
        ]) == ["/data/dbus-1/services", "/opt/share/dbus-1/services", "/usr/share/dbus-1/services"])
    }
}
