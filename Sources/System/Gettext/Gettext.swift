import CGlibc
import Glibc

/// glibc's gettext for the text domain `gbnotify`: the session's language (`LANGUAGE`, then
/// `LC_ALL`, `LC_MESSAGES`, `LANG`), its catalog `LANG/LC_MESSAGES/gbnotify.mo` under the locale
/// directory, its texts in UTF-8 whatever the locale's character set.
///
/// The process's own locale stays C: only gbnotify's messages are looked up in the session's
/// locale for messages (`uselocale` around each lookup, on the calling thread), so what the C
/// libraries word (strerror, libdbus's and GLib's errors) stays English in the log, where bug
/// reports and `journalctl` searches want it.
public enum Gettext {
    public static let domain = "gbnotify"
    /// Overrides the locale directory: the tests point it at the build tree's compiled catalogs.
    public static let directoryVariable = "GBNOTIFY_LOCALEDIR"

    /// The session's locale for messages; nil when it names one that is not installed (glibc
    /// then has only C's, in which `LANGUAGE` is not followed).
    private struct MessagesLocale: @unchecked Sendable {
        // Made once and never freed or changed: uselocale only reads it, on any thread.
        let handle: locale_t
    }

    private static let messagesLocale = gbn_messages_locale().map(MessagesLocale.init)

    /// Binds the text domain to the catalogs' directory, its texts in UTF-8. Once, at a
    /// program's start, before any text is made.
    public static func start() {
        _ = bindtextdomain(domain, directory)
        _ = bind_textdomain_codeset(domain, "UTF-8")
    }

    /// Where the catalogs are: `GBNOTIFY_LOCALEDIR`, else `share/locale` beside the executable's
    /// `bin` (the prefix `make install` and the .deb install to).
    public static var directory: String {
        if let variable = getenv(directoryVariable), variable.pointee != 0 { return String(cString: variable) }
        guard let binary = realpath("/proc/self/exe", nil) else { return "/usr/share/locale" }
        defer { free(binary) }
        let bin = String(cString: binary).split(separator: "/").dropLast()
        return "/" + bin.dropLast().joined(separator: "/") + (bin.count > 1 ? "/" : "") + "share/locale"
    }

    /// The translation of `id`, or nil when the catalog has none (gettext then hands back `id`
    /// itself).
    public static func text(_ id: String) -> String? {
        inMessagesLocale {
            id.withCString { pointer in
                guard let translated = dgettext(domain, pointer), translated != UnsafeMutablePointer(mutating: pointer) else { return nil }
                return String(cString: translated)
            }
        }
    }

    /// The plural form for `count` by the catalog's rule, or nil when the catalog has none.
    public static func plural(_ singular: String, _ plural: String, count: Int) -> String? {
        inMessagesLocale {
            singular.withCString { one in
                plural.withCString { many in
                    guard let translated = dngettext(domain, one, many, UInt(clamping: count)),
                          translated != UnsafeMutablePointer(mutating: one), translated != UnsafeMutablePointer(mutating: many)
                    else { return nil }
                    return String(cString: translated)
                }
            }
        }
    }

    /// The `Language:` of the catalog in use (its header is the translation of ""), or nil when
    /// none is: the messages are then English.
    public static var catalogLanguage: String? {
        guard let header = text("") else { return nil }
        for line in header.split(separator: "\n") where line.hasPrefix("Language:") {
            let language = line.dropFirst("Language:".count).drop { $0 == " " }
            return language.isEmpty ? nil : String(language)
        }
        return nil
    }

    /// What the messages follow: `LANGUAGE`, and the locale for messages (C when the one the
    /// environment names is not installed; glibc ignores `LANGUAGE` while it is C or POSIX).
    public static var sessionLanguage: (language: String?, messagesLocale: String) {
        let names: [String] = ["LC_ALL", "LC_MESSAGES", "LANG"]
        let named = names.lazy.compactMap { name in getenv(name).map { String(cString: $0) } }.first { !$0.isEmpty }
        let language = getenv("LANGUAGE").map { String(cString: $0) }
        return (language?.isEmpty == false ? language : nil, messagesLocale == nil ? "C" : named ?? "C")
    }

    private static func inMessagesLocale<Result>(_ lookup: () -> Result) -> Result {
        guard let messagesLocale else { return lookup() }
        let previous = uselocale(messagesLocale.handle)
        defer { uselocale(previous) }
        return lookup()
    }
}
