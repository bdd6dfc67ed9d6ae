// swift-tools-version:6.3
// Swift 6.3 at least: Sources/Threads runs the daemon's tasks on an executor of its own through
// the 6.3 runtime's executor interface, which older toolchains lack. An older SwiftPM stops at
// this first line and says so ("is using Swift tools version 6.3.0 but the installed version
// is ..."), before any compiler error could. Every target is in the Swift 6 language mode, with
// strict concurrency checking on.
import PackageDescription

let package = Package(
    name: "gbnotify",
    products: [
        .executable(name: "gbnotifyd", targets: ["gbnotifyd"]),
        .executable(name: "gbnotifyctl", targets: ["gbnotifyctl"]),
    ],
    targets: [
        // Thin system-library shims: a header and a module map each.
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
        .systemLibrary(name: "CSecret", pkgConfig: "libsecret-1", providers: [.apt(["libsecret-1-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CNotify", pkgConfig: "libnotify", providers: [.apt(["libnotify-dev"])]),
        // librsvg for the tray icon's SVG; its pkg-config brings cairo, which draws the count.
        .systemLibrary(name: "CRsvg", pkgConfig: "librsvg-2.0", providers: [.apt(["librsvg2-dev", "libcairo2-dev"])]),
        // glibc calls Swift's Glibc module does not declare: posix_spawn's closefrom action and prctl.
        .target(name: "CGlibc"),
        // Starting a program by argv with only its standard streams: the daemon's clicks, the tests' children.
        .target(name: "Spawn", dependencies: ["CGlibc"]),

        // Threads gbnotify owns: a worker for blocking calls, and the executor that runs the
        // daemon's tasks and sleeps without a timer while it waits.
        .target(name: "Threads", dependencies: ["CGlibc"]),

        // Pure logic: no I/O, no C.
        .target(name: "PushCore"),
        // Hand-written command-line parsing shared by both executables.
        .target(name: "CommandKit"),
        // Typed wrapper over libcurl's easy interface.
        .target(name: "Curl", dependencies: ["CCurl", "Threads"]),
        // The gitbay HTTP API, spoken through Curl, answered in PushCore types.
        .target(name: "GitbayClient", dependencies: ["PushCore", "Curl"]),
        // Accounts in the Secret Service through libsecret, on a thread of its own; the Secret
        // Service's signals followed over the daemon's DBus connection.
        .target(name: "Keyring", dependencies: ["PushCore", "CSecret", "DBus", "Threads"]),
        // The desktop's notification server through libnotify, on a GLib main loop of its own.
        .target(name: "Notifications", dependencies: ["CNotify", "Threads"]),
        // Typed wrapper over libdbus: one connection, messages, calls, signals, names.
        .target(name: "DBus", dependencies: ["CDBus", "Threads"]),
        // The state directory: per-account state, the relay cursor and what is on screen, written
        // atomically on a worker thread.
        .target(name: "StateStore", dependencies: ["PushCore", "Threads"]),
        // Adding, registering, listing and removing accounts: keyring, API and state together.
        .target(name: "Accounts", dependencies: ["PushCore", "GitbayClient", "Keyring", "StateStore"]),

        // The config file read into the daemon's settings, for gbnotifyd and gbnotifyctl alike.
        .target(name: "Settings", dependencies: ["PushCore", "GitbayClient"]),
        // The daemon's log: journald priorities on standard error, one bounded line per event.
        .target(name: "Logging", dependencies: ["PushCore"]),
        // The desktop stage: notifications on screen (and taken over after a restart), the
        // launcher badge, and what a click opens.
        .target(name: "Desktop", dependencies: ["PushCore", "Notifications", "DBus", "StateStore", "Logging", "Spawn", "Threads"]),
        // The tray item (StatusNotifierItem and its dbusmenu) on the daemon's connection: the
        // unread count on its icon, the inbox in its menu, choices handed out as requests.
        .target(name: "Tray", dependencies: ["PushCore", "DBus", "Logging", "CRsvg"]),
        // The terminal on standard input and output: raw mode and back, its size, keys and signals.
        .target(name: "Terminal", dependencies: ["Threads"]),
        // gbnotify's terminal view of items and the inbox: layout, keys and state (pure), and the
        // loop that runs them at a terminal.
        .target(name: "TerminalView", dependencies: ["PushCore", "Terminal"]),

        // The daemon's parts: supervisor, per-account pollers, bus service, logging.
        .target(name: "Daemon", dependencies: [
            "PushCore", "CGlibc", "Curl", "GitbayClient", "Keyring", "StateStore", "Accounts", "DBus", "Desktop", "Logging",
            "Settings", "Threads",
        ]),

        .executableTarget(name: "gbnotifyd", dependencies: ["PushCore", "CommandKit", "Daemon", "Threads"]),
        .executableTarget(name: "gbnotifyctl", dependencies: [
            "PushCore", "CommandKit", "Accounts", "DBus", "GitbayClient", "Keyring", "Settings", "Spawn", "StateStore",
            "Terminal", "TerminalView", "Threads",
        ]),

        // `make bench`: the latencies measured in process (Benchmarks/README.md).
        .executableTarget(name: "gbnotify-bench", dependencies: ["Curl", "DBus", "PushCore", "TestSupport", "Threads"], path: "Benchmarks/InProcess"),
        // What the tray item costs in memory, on against off (Benchmarks/README.md).
        .executableTarget(name: "gbnotify-tray-bench", dependencies: ["DBus", "Logging", "PushCore", "Tray"], path: "Benchmarks/Tray"),

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
        .testTarget(name: "ThreadsTests", dependencies: ["Threads"]),
        .testTarget(name: "CurlTests", dependencies: ["Curl", "TestSupport"]),
        .testTarget(name: "GitbayClientTests", dependencies: ["Curl", "GitbayClient", "PushCore", "TestSupport"]),
        .testTarget(name: "KeyringTests", dependencies: ["Keyring", "PushCore", "DBus", "TestSupport"]),
        .testTarget(name: "DBusTests", dependencies: ["DBus"]),
        .testTarget(name: "StateStoreTests", dependencies: ["StateStore", "PushCore"]),
        .testTarget(
            name: "DaemonTests", dependencies: [
                "Accounts", "Daemon", "Desktop", "DBus", "GitbayClient", "Keyring", "Logging", "PushCore", "Settings",
                "StateStore", "TestSupport", "DesktopSuites", "Threads",
            ],
            // Which test covers which fault: read by people, not built.
            exclude: ["FaultCatalogue.md"]),
        // Runs the built gbnotifyctl against the stand-in and the session's real keyring.
        .testTarget(name: "gbnotifyctlTests", dependencies: ["TestSupport", "PushCore"]),
        // The rigs themselves (Tests/TestSupport/Rigs), proven with plain tools: notify-send,
        // gdbus, systemd-inhibit, and subscribers on the bus.
        .testTarget(name: "RigTests", dependencies: ["TestSupport", "DesktopSuites", "DBus"]),
        // The tray item on a private bus, then on the real tray hosts (Plasma, Xfce's panel,
        // GNOME Shell with the AppIndicator extension).
        .testTarget(name: "TrayTests", dependencies: ["Tray", "PushCore", "DBus", "Logging", "TestSupport", "DesktopSuites"]),
    ]
)
