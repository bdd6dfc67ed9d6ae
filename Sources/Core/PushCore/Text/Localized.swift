import Synchronization

/// Every text a person reads (a notification, the tray's menu, the terminal view, gbnotifyctl's
/// output and errors) is written as one call here, in English, with a note for its translator:
///
///     Localized.text("Muted {repository} on {account}",
///                    note: "A notification's title after Mute. {repository}: owner/name; {account}: user@host.",
///                    ["repository": repository, "account": account.displayName])
///
/// Log lines, D-Bus names, config keys, JSON, command and option names stay English: they never
/// come here, or only through `inEnglish` (one decision worded for a person and for the log). `scripts/extract-messages` reads these calls from the sources into
/// `po/gbnotify.pot`: the message, the context and the note must be plain string literals
/// (`StaticString` holds them to it), one call per message.
///
/// Placeholders are named, `{name}`, and filled after translation, so a language may put them in
/// any order; every placeholder is named in the note. A plural's count is `{count}`.
///
/// PushCore decides the texts but stays pure: the catalog (gettext, in the programs) is handed in
/// once at start with `use`, as a value of plain functions. Until then, and in every test that
/// hands none, the texts are the English ones written here.
public enum Localized {
    /// Where translations come from: the text domain's catalog for the session's language.
    /// Each returns nil when the catalog has no translation.
    public struct Catalog: Sendable {
        /// The translation of a message id (a context is written before it, "context\u{4}id",
        /// as gettext's `pgettext` writes it).
        public let text: @Sendable (_ id: String) -> String?
        /// The form of a plural for `count`: the language's rule picks it.
        public let plural: @Sendable (_ singular: String, _ plural: String, _ count: Int) -> String?

        public init(
            text: @escaping @Sendable (String) -> String?, plural: @escaping @Sendable (String, String, Int) -> String?
        ) {
            self.text = text
            self.plural = plural
        }
    }

    private static let catalog = Mutex<Catalog?>(nil)

    /// The catalog of this process, handed in once by the program before it shows anything;
    /// nil for the English written in the calls (what JSON output is made in).
    public static func use(_ catalog: Catalog?) {
        self.catalog.withLock { $0 = catalog }
    }

    /// Whether the texts made on this task are the English written in the calls, whatever the
    /// catalog (`inEnglish`).
    @TaskLocal private static var isEnglish = false

    /// `body` with every text in the English written in the calls: the one decision a person
    /// reads in the session's language, worded again for a log line or JSON.
    public static func inEnglish<Value>(_ body: () -> Value) -> Value {
        $isEnglish.withValue(true, operation: body)
    }

    /// The catalog's translations, unless this task is making English.
    private static var translations: Catalog? {
        isEnglish ? nil : catalog.withLock { $0 }
    }

    /// A message: its translation, or the English, with its placeholders filled.
    public static func text(
        _ message: StaticString, context: StaticString? = nil, note: StaticString? = nil,
        _ values: KeyValuePairs<String, String> = [:]
    ) -> String {
        let english = message.description
        let id = context.map { "\($0.description)\u{4}\(english)" } ?? english
        let translated = translations?.text(id) ?? english
        return filled(translated, values)
    }

    /// A message with a count: the form the language's plural rule picks for `count`, with
    /// `{count}` and the other placeholders filled.
    public static func plural(
        _ singular: StaticString, _ plural: StaticString, count: Int, context: StaticString? = nil, note: StaticString? = nil,
        _ values: KeyValuePairs<String, String> = [:]
    ) -> String {
        let (one, many) = (singular.description, plural.description)
        let id = context.map { "\($0.description)\u{4}\(one)" } ?? one
        let translated = translations?.plural(id, many, count) ?? (count == 1 ? one : many)
        return filled(translated, [("count", String(count))] + values.map { ($0.key, $0.value) })
    }

    /// `{name}` replaced by its value in one pass, so a value that holds braces is never read as
    /// a placeholder; a name without a value stays as written.
    static func filled(_ template: String, _ values: KeyValuePairs<String, String>) -> String {
        filled(template, values.map { ($0.key, $0.value) })
    }

    private static func filled(_ template: String, _ values: [(String, String)]) -> String {
        guard !values.isEmpty, template.contains("{") else { return template }
        var result = ""
        var rest = template[...]
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            let afterOpen = rest.index(after: open)
            guard let close = rest[afterOpen...].firstIndex(of: "}"),
                  let value = values.first(where: { $0.0 == rest[afterOpen..<close] })?.1
            else {
                result.append("{")
                rest = rest[afterOpen...]
                continue
            }
            result += value
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }
}
