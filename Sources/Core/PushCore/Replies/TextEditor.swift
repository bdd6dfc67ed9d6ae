/// The editor a reply is written in, chosen as `git commit` chooses: `$VISUAL`, else `$EDITOR`,
/// else `vi`. Its value is split into words as a shell would (`code --wait`, quotes), with no
/// expansion and no shell started; the file to edit is the last word.
public enum TextEditor {
    public static let fallback = "vi"

    public static func argv(environment: [String: String], file: String) throws(ShellWords.SplitError) -> [String] {
        let chosen = [environment["VISUAL"], environment["EDITOR"]].lazy.compactMap { $0 }
            .first { !$0.trimmingWhitespace.isEmpty } ?? fallback
        let words = try ShellWords.split(chosen)
        return (words.isEmpty ? [fallback] : words) + [file]
    }
}
