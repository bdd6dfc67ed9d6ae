import CommandKit
import PushCore

extension UsageWords {
    /// CommandKit's usage errors in the session's language. Option and command names, and what
    /// the user typed, stay as they are.
    static let localized = UsageWords(
        problem: { error in
            switch error.problem {
            case .needsValue(let option):
                Localized.text("{option} needs a value", note: "A usage error of gbnotifyctl. {option}: an option, as --rows (stays English).", ["option": option])
            case .missing(let name):
                Localized.text(
                    "missing {argument}", note: "A usage error of gbnotifyctl: an argument was not given. {argument}: its name in capitals, as ACCOUNT (stays English).",
                    ["argument": name])
            case .unknownOption(let option):
                Localized.text("unknown option '{option}'", note: "A usage error of gbnotifyctl. {option}: what was typed.", ["option": option])
            case .unexpectedArgument(let word):
                Localized.text("unexpected argument '{argument}'", note: "A usage error of gbnotifyctl: one word too many. {argument}: what was typed.", ["argument": word])
            case .unknownCommand(let word, let expected):
                Localized.text(
                    "unknown command '{command}'; expected one of: {commands}",
                    note: "A usage error of gbnotifyctl. {command}: what was typed; {commands}: the commands, comma-separated (stay English).",
                    ["command": word, "commands": expected.joined(separator: ", ")])
            case .missingCommand(let expected):
                Localized.text(
                    "missing command; expected one of: {commands}", note: "A usage error of gbnotifyctl. {commands}: the commands, comma-separated (stay English).",
                    ["commands": expected.joined(separator: ", ")])
            case .said(let message):
                message
            }
        },
        seeHelp: { command in
            Localized.text("See '{command}'.", note: "The last line of a usage error. {command}: gbnotifyctl --help, or the command's own (stays English).", ["command": command])
        })
}
