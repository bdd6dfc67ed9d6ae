/// The parts of a tool's manual page that its declarations say: the SYNOPSIS section's body
/// (`tool --generate-manual synopsis`) and the `.TP` headers of its OPTIONS section (`tool
/// --generate-manual options`). The pages under packaging/man hold exactly these, and a test keeps
/// them so; the prose around them is written by hand.
public enum ManualPage {
    public static let parts = ["synopsis", "options"]

    public static func render(_ part: String, root: any Command.Type, toolName: String) -> String? {
        let tree = CommandTree(root: root, toolName: toolName)
        switch part {
        case "synopsis": return synopsis(tree)
        case "options": return options(tree)
        default: return nil
        }
    }

    /// One `.B` line a command (each leaf of a tool with commands), its words on the next line,
    /// commands apart by `.br`.
    private static func synopsis(_ tree: CommandTree) -> String {
        let commands = tree.nodes.count == 1 ? tree.nodes : tree.leaves
        return commands.map { node in
            let name = ([tree.toolName] + node.path).joined(separator: " ")
            let words = node.configuration.synopsis
            return ".B \(name)" + (words.isEmpty ? "" : "\n" + roff(words))
        }.joined(separator: "\n.br\n") + "\n"
    }

    /// The headers of the tool's own options, `--help` and `--version` last, each after `.TP`.
    private static func options(_ tree: CommandTree) -> String {
        let root = tree.nodes[0]
        return (root.configuration.options.map(header) + [".BR \\-h \", \" \\-\\-help", header(.version)])
            .map { ".TP\n" + $0 }.joined(separator: "\n") + "\n"
    }

    private static func header(_ option: Option) -> String {
        switch option.value {
        case .none: ".B \(escaped(option.name))"
        case .required(let value): ".BI \(escaped(option.name)) \" \(escaped(value.lowercased()))\""
        case .optional(let value): ".BI \(escaped(option.name)) \" \\fR[\\fI\(escaped(value.lowercased()))\\fR]\""
        }
    }

    /// A synopsis as roff: options and literal words (`until`, `issues`) bold, the words that
    /// stand for values (their first letter upper case: `URL`, `PAYLOAD.json`) italic and in
    /// lower case, brackets, bars and `<` roman.
    private static func roff(_ synopsis: String) -> String {
        var output = ""
        var word = ""
        func flush() {
            guard !word.isEmpty else { return }
            let rendered = if word == "..." {
                word
            } else if word.hasPrefix("--") || word.first(where: \.isLetter)?.isLowercase ?? true {
                "\\fB\(escaped(word))\\fR"
            } else {
                "\\fI\(escaped(word.lowercased()))\\fR"
            }
            output += rendered
            word = ""
        }
        for character in synopsis {
            if "[]()| <".contains(character) {
                flush()
                output.append(character)
            } else {
                word.append(character)
            }
        }
        flush()
        return output
    }

    /// roff's minus and backslash.
    private static func escaped(_ text: String) -> String {
        text.replacing("\\", with: "\\e").replacing("-", with: "\\-")
    }
}
