import Foundation
import Synchronization

/// The catalogs as the build compiles them, for the tests that run the real programs in another
/// language: every language of `po/LINGUAS` (`scripts/compile-catalogs`, with `msgfmt --check`)
/// and the pseudo-locale `qps` (`scripts/pseudo-catalog`: every message 40% longer, in wide
/// characters), compiled once per test process into a directory of its own.
public enum Translations {
    private static let compiled = Mutex<String?>(nil)

    /// The directory to give the programs as `GBNOTIFY_LOCALEDIR`.
    public static func directory() async throws -> String {
        if let directory = compiled.withLock({ $0 }) { return directory }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gbnotify-locale-\(UUID().uuidString)").path
        for script in ["compile-catalogs", "pseudo-catalog"] {
            let outcome = try await Program.run(
                ["\(Standin.packageRoot)/scripts/\(script)", directory], environment: ProcessInfo.processInfo.environment)
            guard outcome.status == 0 else {
                throw Failure(description: "scripts/\(script) failed (\(outcome.status)): \(outcome.stderr)")
            }
        }
        return compiled.withLock { earlier in
            if let earlier { return earlier }
            earlier = directory
            return directory
        }
    }

    /// What makes a program speak `language`: glibc follows `LANGUAGE` only while the locale
    /// of messages is not C, and C.UTF-8 is in every glibc since 2.35 (a fresh Debian needs
    /// no locale generated); `LC_ALL` and `LC_MESSAGES` empty, so that `LANG` decides.
    public static func environment(_ language: String) async throws -> [String: String] {
        ["LANG": "C.UTF-8", "LC_ALL": "", "LC_MESSAGES": "", "LANGUAGE": language, "GBNOTIFY_LOCALEDIR": try await directory()]
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }
}
