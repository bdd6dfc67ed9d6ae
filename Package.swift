// swift-tools-version:6.0
// Tools version 6.0 puts every target in the Swift 6 language mode, with
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
        // glibc's posix_spawn closefrom action, which needs _GNU_SOURCE to be declared.
        .target(name: "CSpawn"),
        // Starting a program by argv with only its standard streams: the daemon's clicks, the tests' children.
        .target(name: "Spawn", dependencies: ["CSpawn"]),

        // Threads gbnotify owns: a worker for blocking calls, and the executor that runs the
        // daemon's tasks and sleeps without a timer while it waits.
        .target(name: "Threads"),

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
        // Typed wrapper over libdbus: one connection, messages, calls, signals, names.
        .target(name: "DBus", dependencies: ["CDBus", "Threads"]),
        // The state directory: install token and per-account state, written atomically.
        .target(name: "StateStore", dependencies: ["PushCore"]),
        // Adding, registering, listing and removing accounts: keyring, API and state together.
        .target(name: "Accounts", dependencies: ["PushCore", "GitbayClient", "Keyring", "StateStore"]),

        // The daemon's parts: supervisor, per-account pollers, bus service, logging.
        .target(name: "Daemon", dependencies: ["PushCore", "GitbayClient", "Keyring", "StateStore", "Accounts", "DBus", "Spawn", "Threads"]),

        .executableTarget(name: "gbnotifyd", dependencies: ["PushCore", "CommandKit", "Daemon", "Threads"]),
        // Daemon for doctor, which reads the config file exactly as gbnotifyd does.
        .executableTarget(name: "gbnotifyctl", dependencies: ["PushCore", "CommandKit", "Accounts", "DBus", "Daemon"]),

        // `make bench`: the latencies measured in process (Benchmarks/README.md).
        .executableTarget(name: "gbnotify-bench", dependencies: ["Curl", "DBus", "Daemon", "PushCore", "TestSupport", "Threads"], path: "Benchmarks/InProcess"),

        // Starts and scripts the gitbay stand-in (Tests/Standin) for Swift tests.
        .target(name: "TestSupport", dependencies: ["Curl", "Spawn"], path: "Tests/TestSupport"),

        .testTarget(name: "PushCoreTests", dependencies: ["PushCore"]),
        .testTarget(name: "CommandKitTests", dependencies: ["CommandKit"]),
        .testTarget(name: "ThreadsTests", dependencies: ["Threads"]),
        .testTarget(name: "CurlTests", dependencies: ["Curl", "TestSupport"]),
        .testTarget(name: "GitbayClientTests", dependencies: ["GitbayClient", "PushCore", "TestSupport"]),
        .testTarget(name: "KeyringTests", dependencies: ["Keyring", "PushCore", "DBus", "TestSupport"]),
        .testTarget(name: "DBusTests", dependencies: ["DBus"]),
        .testTarget(name: "StateStoreTests", dependencies: ["StateStore", "PushCore"]),
        .testTarget(
            name: "DaemonTests", dependencies: ["Daemon", "PushCore", "StateStore", "TestSupport"],
            // Which test covers which fault: read by people, not built.
            exclude: ["FaultCatalogue.md"]),
        // Runs the built gbnotifyctl against the stand-in and the session's real keyring.
        .testTarget(name: "gbnotifyctlTests", dependencies: ["TestSupport", "PushCore"]),
    ]
)
