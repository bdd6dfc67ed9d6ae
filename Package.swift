// swift-tools-version:6.3
// Swift 6.3 at least: Sources/System/MainLoop runs the programs' tasks on GLib's main loop through the
// 6.3 runtime's executor interface, which older toolchains lack. An older SwiftPM stops at
// this first line and says so ("is using Swift tools version 6.3.0 but the installed version
// is ..."), before any compiler error could. Every target is in the Swift 6 language mode, with
// strict concurrency checking on.
import Glibc
import PackageDescription

/// The header directories of GLib and the libraries built on it, as `-Xcc -I...` for the Swift
/// targets that import them. A system library target's `pkgConfig:` would read them too, but
/// SwiftPM then also takes the `-pthread` that their pkg-config files add (GIO's through gmodule;
/// on Debian 13 GLib's own too), refuses it, and warns on every build; header search paths are
/// all an import needs.
func headerSearchPaths(_ packages: String...) -> [SwiftSetting] {
    guard let output = popen("pkg-config --cflags-only-I \(packages.joined(separator: " "))", "r") else { return [] }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while case let count = fread(&buffer, 1, buffer.count, output), count > 0 { bytes += buffer[..<count] }
    pclose(output)
    let directories = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isWhitespace).map(String.init)
    return [.unsafeFlags(directories.flatMap { ["-Xcc", $0] })]
}

/// What Debian's hardening asks of every binary, asked of the link itself rather than left to the
/// system's linker: relocations read-only after start-up (RELRO), every symbol bound at start-up
/// so that all of them can be (BIND_NOW), and a position-independent executable. Linked by the
/// toolchain's own lld on every release: Debian 12's gold is gone from Debian 13, whose ld.bfd
/// makes no RELRO segment of Swift's objects (some mark their .rodata writable), even when asked.
let hardenedLink: [LinkerSetting] = [
    .unsafeFlags(["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "relro", "-Xlinker", "-z", "-Xlinker", "now", "-Xclang-linker", "-pie"])
]

let package = Package(
    name: "gbnotify",
    products: [
        .executable(name: "gbnotifyd", targets: ["gbnotifyd"]),
        .executable(name: "gbnotifyctl", targets: ["gbnotifyctl"]),
    ],
    targets: [
        // Thin system-library shims: a header and a module map each. (CGLib's and CSecret's headers
        // are found through `headerSearchPaths` in the one target that imports each. libcurl's are
        // in the compiler's own multiarch directory; its pkg-config file on Debian 13 adds
        // `-isystem /usr/include/mit-krb5` for GSSAPI, which SwiftPM would refuse with a warning.)
        .systemLibrary(name: "CDBus", path: "Sources/Shims/CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
        .systemLibrary(name: "CSecret", path: "Sources/Shims/CSecret", providers: [.apt(["libsecret-1-dev"])]),
        .systemLibrary(name: "CCurl", path: "Sources/Shims/CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CGLib", path: "Sources/Shims/CGLib", providers: [.apt(["libglib2.0-dev"])]),
        // librsvg for the tray icon's SVG, which brings cairo, which draws the count. (Its
        // headers are found through `headerSearchPaths` in the one target that imports it.)
        .systemLibrary(name: "CRsvg", path: "Sources/Shims/CRsvg", providers: [.apt(["librsvg2-dev", "libcairo2-dev"])]),
        // glibc calls Swift's Glibc module does not declare: posix_spawn's closefrom action, prctl,
        // timerfd, signalfd, thread names.
        .target(name: "CGlibc", path: "Sources/Shims/CGlibc"),
        // Typed system calls in apple/swift-system's shape: a FileDescriptor, Errno, EINTR
        // retried in one place, the one bounded read, whole writes, regular files opened
        // without waiting.
        .target(name: "SystemCalls", path: "Sources/System/SystemCalls"),
        // Starting a program by argv with only its standard streams: the daemon's clicks, the tests' children;
        // and running one to its end with its output captured and a deadline (gbnotifyctl's ssh).
        // glibc's gettext for the text domain gbnotify: the session's language, the catalogs'
        // directory (the install's, or the build tree's for tests).
        .target(name: "Gettext", dependencies: ["CGlibc"], path: "Sources/System/Gettext"),
        .target(name: "Spawn", dependencies: ["CGlibc", "MainLoop", "SystemCalls"], path: "Sources/System/Spawn"),

        // The one place a process waits: GLib's main loop, with the executor that runs every
        // Swift task on it, its sources (descriptors, timeouts, signals, children), and a worker
        // for the blocking calls that must stay off it.
        .target(name: "MainLoop", dependencies: ["CGLib", "CGlibc"], path: "Sources/System/MainLoop", swiftSettings: headerSearchPaths("glib-2.0")),

        // Pure logic: no I/O, no C.
        .target(name: "PushCore", path: "Sources/Core/PushCore"),
        // Hand-written command-line parsing shared by both executables.
        .target(name: "CommandKit", path: "Sources/Core/CommandKit"),
        // Typed wrapper over libcurl, its transfers on the main loop (the multi socket interface).
        .target(name: "Curl", dependencies: ["CCurl", "MainLoop", "SystemCalls"], path: "Sources/System/Curl"),
        // The gitbay HTTP API, spoken through Curl, answered in PushCore types.
        .target(name: "GitbayClient", dependencies: ["PushCore", "Curl"], path: "Sources/Services/GitbayClient"),
        // gitbay's SSH-only commands (minting and revoking API tokens), run with the system's ssh.
        .target(name: "GitbaySSH", dependencies: ["PushCore", "Spawn", "MainLoop"], path: "Sources/Services/GitbaySSH"),
        // Accounts in the Secret Service through libsecret's asynchronous calls on the main loop;
        // the Secret Service's signals followed over the daemon's DBus connection.
        .target(
            name: "Keyring", dependencies: ["PushCore", "CSecret", "DBus", "MainLoop"], path: "Sources/Services/Keyring",
            swiftSettings: headerSearchPaths("libsecret-1")),
        // The desktop's notification server (org.freedesktop.Notifications) over a DBus connection.
        .target(name: "Notifications", dependencies: ["DBus", "PushCore", "SystemCalls"], path: "Sources/Services/Notifications"),
        // Typed wrapper over libdbus: connections on the main loop, messages, calls, signals, names.
        .target(name: "DBus", dependencies: ["CDBus", "MainLoop", "SystemCalls"], path: "Sources/System/DBus"),
        // The state directory: per-account state, the relay cursor and what is on screen, written
        // atomically on a worker thread.
        .target(name: "StateStore", dependencies: ["PushCore", "MainLoop", "SystemCalls"], path: "Sources/Services/StateStore"),
        // Adding, registering, listing and removing accounts: keyring, API and state together.
        .target(name: "Accounts", dependencies: ["PushCore", "GitbayClient", "GitbaySSH", "Keyring", "StateStore"], path: "Sources/Stages/Accounts"),

        // The system's time zone rules (localtime_r) for PushCore's wall-clock decisions: quiet
        // hours, snoozes until a time of day.
        .target(name: "LocalTime", dependencies: ["PushCore"], path: "Sources/Services/LocalTime"),
        // The config file read and checked, for gbnotifyd and gbnotifyctl alike.
        .target(name: "Settings", dependencies: ["PushCore", "Curl", "SystemCalls"], path: "Sources/Services/Settings"),
        // The daemon's log: journald priorities on standard error, one bounded line per event.
        .target(name: "Logging", dependencies: ["PushCore", "SystemCalls"], path: "Sources/Services/Logging"),
        // The desktop stage: notifications on screen (and taken over after a restart), the
        // launcher badge, and what a click opens.
        .target(
            name: "Desktop", dependencies: ["PushCore", "Notifications", "DBus", "StateStore", "Logging", "Opener", "MainLoop", "LocalTime"], path: "Sources/Stages/Desktop"),
        // Opening what a click opens: the system's OpenURI portal, else a program by argv.
        .target(name: "Opener", dependencies: ["PushCore", "DBus", "Spawn", "SystemCalls"], path: "Sources/Services/Opener"),
        // The tray item (StatusNotifierItem and its dbusmenu) on the daemon's connection: the
        // unread count on its icon, the inbox in its menu, choices handed out as requests.
        .target(name: "Tray", dependencies: ["PushCore", "DBus", "Logging", "MainLoop", "Spawn"], path: "Sources/Stages/Tray"),
        // The tray icon with its count, drawn with librsvg and cairo: in `gbnotifyctl
        // draw-tray-icon`, which the tray runs, never in the daemon.
        .target(name: "TrayIcon", dependencies: ["PushCore", "CRsvg"], path: "Sources/Stages/TrayIcon", swiftSettings: headerSearchPaths("librsvg-2.0")),
        // The terminal on standard input and output: raw mode and back, its size, keys and signals.
        .target(name: "Terminal", dependencies: ["MainLoop", "SystemCalls"], path: "Sources/System/Terminal"),
        // gbnotify's terminal view of items and the inbox: layout, keys and state (pure), and the
        // loop that runs them at a terminal.
        .target(name: "TerminalView", dependencies: ["PushCore", "Terminal", "MainLoop"], path: "Sources/Stages/TerminalView"),

        // The daemon's parts: supervisor, per-account pollers, bus service, logging.
        .target(name: "Daemon", dependencies: [
            "PushCore", "CGlibc", "Curl", "GitbayClient", "Keyring", "StateStore", "Accounts", "DBus", "Desktop", "Logging",
            "Settings", "MainLoop", "LocalTime", "Tray", "Notifications", "Spawn", "SystemCalls",
        ], path: "Sources/Stages/Daemon"),

        .executableTarget(
            name: "gbnotifyd", dependencies: ["PushCore", "CommandKit", "Daemon", "Gettext", "MainLoop", "SystemCalls"], path: "Sources/Programs/gbnotifyd",
            linkerSettings: hardenedLink),
        .executableTarget(
            name: "gbnotifyctl",
            dependencies: [
                "PushCore", "CGlibc", "CommandKit", "Gettext", "Accounts", "DBus", "GitbayClient", "GitbaySSH", "Keyring", "LocalTime", "Settings",
                "Spawn", "StateStore", "Opener", "Notifications", "SystemCalls", "TrayIcon", "Terminal", "TerminalView", "MainLoop",
            ], path: "Sources/Programs/gbnotifyctl",
            linkerSettings: hardenedLink),

        // `make bench`: the latencies measured in process (Benchmarks/README.md).
        .executableTarget(
            name: "gbnotify-bench", dependencies: ["Curl", "DBus", "MainLoop", "PushCore", "TerminalView", "TestSupport"],
            path: "Benchmarks/InProcess"),
        // What the tray item costs in memory, on against off (Benchmarks/README.md).
        .executableTarget(name: "gbnotify-tray-bench", dependencies: ["DBus", "Logging", "MainLoop", "PushCore", "Spawn", "Tray"], path: "Benchmarks/Tray"),

        // Starts and scripts the stand-ins (Tests/Standin) for Swift tests, and the rigs they
        // stand on: desktop sessions with real notification servers, a stand-in system bus.
        .target(
            name: "TestSupport", dependencies: ["Curl", "DBus", "Spawn"], path: "Tests/TestSupport",
            exclude: ["Rigs/README.md"]),
        // The Swift Testing side of the rigs: one desktop session for a suite. Apart from
        // TestSupport so that gbnotify-bench, which uses the rigs, links no test framework.
        .target(name: "DesktopSuites", dependencies: ["TestSupport"], path: "Tests/DesktopSuites"),

        .testTarget(name: "PushCoreTests", dependencies: ["PushCore"]),
        .testTarget(name: "CommandKitTests", dependencies: ["CommandKit"]),
        .testTarget(name: "TerminalViewTests", dependencies: ["TerminalView", "PushCore"]),
        .testTarget(name: "MainLoopTests", dependencies: ["MainLoop"]),
        .testTarget(name: "SystemCallsTests", dependencies: ["SystemCalls"]),
        // ChildProcess with real programs, and GitbaySSH's deadline against the real sshd.
        .testTarget(name: "GitbaySSHTests", dependencies: ["GitbaySSH", "PushCore", "Spawn", "TestSupport", "MainLoop"]),
        .testTarget(name: "CurlTests", dependencies: ["Curl", "TestSupport"]),
        .testTarget(name: "GitbayClientTests", dependencies: ["Curl", "GitbayClient", "PushCore", "TestSupport"]),
        .testTarget(name: "KeyringTests", dependencies: ["Keyring", "PushCore", "DBus", "TestSupport", "DesktopSuites", "MainLoop"]),
        .testTarget(name: "DBusTests", dependencies: ["DBus", "TestSupport"]),
        .testTarget(name: "StateStoreTests", dependencies: ["StateStore", "PushCore", "TestSupport"]),
        .testTarget(
            name: "DaemonTests", dependencies: [
                "Accounts", "Daemon", "Desktop", "DBus", "GitbayClient", "Keyring", "Logging", "Notifications", "Opener",
                "PushCore", "Settings", "StateStore", "TestSupport", "DesktopSuites", "MainLoop", "Spawn", "SystemCalls",
            ],
            // Which test covers which fault: read by people, not built.
            exclude: ["FaultCatalogue.md"]),
        // Runs the built gbnotifyctl against the stand-in and the session's real keyring.
        .testTarget(name: "gbnotifyctlTests", dependencies: ["DBus", "TestSupport", "DesktopSuites", "PushCore"]),
        // The rigs themselves (Tests/TestSupport/Rigs), proven with plain tools: notify-send,
        // gdbus, systemd-inhibit, and subscribers on the bus.
        .testTarget(name: "RigTests", dependencies: ["TestSupport", "DesktopSuites", "DBus"]),
        // The tray item on a private bus, then on the real tray hosts (Plasma, Xfce's panel,
        // GNOME Shell with the AppIndicator extension).
        .testTarget(name: "TrayTests", dependencies: ["Tray", "PushCore", "DBus", "Logging", "TestSupport", "DesktopSuites"]),
    ]
)
