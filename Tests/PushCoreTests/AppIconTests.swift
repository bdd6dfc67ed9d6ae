import PushCore
import Testing

/// `app_icon`: the installed icon file wherever it is found, as a URI every server reads.
@Suite struct AppIconTests {
    static let themed = "icons/hicolor/scalable/apps/gbnotify.svg"

    @Test func theFirstDataDirectoryWithTheIconGivesItsFileNotTheThemeName() {
        let installed: Set = ["/usr/share/\(Self.themed)", "/usr/local/share/\(Self.themed)"]
        let icon = AppIcon.choose(
            dataDirectories: ["/home/u/.local/share", "/usr/local/share", "/usr/share"], executableDirectory: "/usr/bin",
            exists: installed.contains)
        #expect(icon == "file:///usr/local/share/\(Self.themed)")
    }

    @Test func withoutAnInstalledIconTheOneBesideTheProgramOrInItsSourceTree() {
        let prefix = AppIcon.choose(
            dataDirectories: ["/usr/share"], executableDirectory: "/opt/gbnotify/bin",
            exists: { $0 == "/opt/gbnotify/bin/../share/\(Self.themed)" })
        #expect(prefix == "file:///opt/gbnotify/share/\(Self.themed)")

        let build = AppIcon.choose(
            dataDirectories: ["/usr/share"], executableDirectory: "/src/gbnotify/.build/x86_64-unknown-linux-gnu/release",
            exists: { $0 == "/src/gbnotify/packaging/gbnotify.svg" })
        #expect(build == "file:///src/gbnotify/packaging/gbnotify.svg")
    }

    @Test func noFileAnywhereLeavesTheThemeName() {
        #expect(AppIcon.choose(dataDirectories: ["/usr/share"], executableDirectory: nil, exists: { _ in false }) == "gbnotify")
    }

    @Test func dataDirectoriesFollowTheXDGDefaultsAndSkipRelativeOnes() {
        #expect(AppIcon.dataDirectories(environment: ["HOME": "/home/u"])
            == ["/home/u/.local/share", "/usr/local/share", "/usr/share"])
        #expect(AppIcon.dataDirectories(environment: [
            "HOME": "/home/u", "XDG_DATA_HOME": "relative", "XDG_DATA_DIRS": "/opt/share:share:/usr/share",
        ]) == ["/home/u/.local/share", "/opt/share", "/usr/share"])
    }
}
