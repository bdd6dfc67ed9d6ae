import FoundationEssentials

/// Any JSON value, read with `JSONDecoder` and written by hand.
///
/// Reading into a tree lets the push payload parser check each field's type and name the one
/// that is wrong (JSONDecoder reports some type errors as "not valid JSON"). Writing is
/// hand-made because it cannot fail, so callers get bytes instead of a `throws` that never fires.
/// The tests' in-memory gitbay writes its answers with it and reads the stand-in's.
public enum JSONValue: Sendable, Equatable, Decodable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Parses a document; nil when it is not JSON (or nests deeper than JSONDecoder allows).
    public init?(parsing bytes: some Collection<UInt8>) {
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes)) else {
            return nil
        }
        self = value
    }

    public init(from decoder: any Decoder) throws {
        // A failed attempt costs a thrown error, so the common kinds are tried first.
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode([String: JSONValue].self) {
            self = .object(value)
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .number(try container.decode(Double.self))
        }
    }

    /// Compact JSON, object keys sorted so equal values give equal bytes.
    public var serialized: [UInt8] {
        var output: [UInt8] = []
        write(to: &output)
        return output
    }

    private func write(to output: inout [UInt8]) {
        switch self {
        case .null:
            output += "null".utf8
        case .bool(let value):
            output += (value ? "true" : "false").utf8
        case .integer(let value):
            output += String(value).utf8
        case .number(let value):
            // Swift's shortest round-trip form ("0.1", "1e+100") is valid JSON; JSON has no
            // infinity or NaN, and JSONDecoder never produces them.
            output += (value.isFinite ? String(value) : "null").utf8
        case .string(let value):
            Self.write(string: value, to: &output)
        case .array(let values):
            output.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                value.write(to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (index, member) in members.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                Self.write(string: member.key, to: &output)
                output.append(UInt8(ascii: ":"))
                member.value.write(to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// A JSON string: quote, backslash and whatever `JSONText` escapes escaped, everything else
    /// as UTF-8.
    private static func write(string: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": output += #"\""#.utf8
            case "\\": output += #"\\"#.utf8
            case "\n": output += #"\n"#.utf8
            case "\r": output += #"\r"#.utf8
            case "\t": output += #"\t"#.utf8
            case _ where JSONText.isEscaped(scalar): output += JSONText.escaped(scalar).utf8
            default: output += String(scalar).utf8
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}

/// JSON that is safe to print: no control character a terminal acts on, and nothing that makes
/// the text read differently from what it is, inside its strings either. The one rule for every
/// JSON gbnotify writes (`JSONValue`) and every JSON gbnotifyctl prints (`Console`), whoever
/// made it: the daemon's `Status`, a server's answer, an encoder's output.
public enum JSONText {
    /// C0 controls (U+0000–U+001F), DEL and the C1 controls (U+007F–U+009F), format characters
    /// (bidi overrides and isolates, zero-width ones) and the line and paragraph separators: in a
    /// string, written as `\uXXXX`, which every JSON reader turns back into the same text.
    static func isEscaped(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: true
        default: false
        }
    }

    /// `\uXXXX`, as a surrogate pair past the Basic Multilingual Plane.
    static func escaped(_ scalar: Unicode.Scalar) -> String {
        String(scalar).utf16.map { unit in
            let hex = String(unit, radix: 16)
            return #"\u"# + String(repeating: "0", count: 4 - hex.count) + hex
        }.joined()
    }

    /// `json` with every character `isEscaped` names escaped inside its strings, and dropped
    /// outside them (where valid JSON has none but its whitespace, which stays): what else it
    /// says, its layout and its numbers as written, is unchanged.
    public static func printable(_ json: String) -> String {
        var result = ""
        var inString = false
        var afterBackslash = false
        for scalar in json.unicodeScalars {
            if inString {
                if afterBackslash {
                    afterBackslash = false
                } else if scalar == "\\" {
                    afterBackslash = true
                } else if scalar == "\"" {
                    inString = false
                } else if isEscaped(scalar) {
                    result += escaped(scalar)
                    continue
                }
            } else if scalar == "\"" {
                inString = true
            } else if isEscaped(scalar) && scalar != "\n" && scalar != "\t" && scalar != "\r" {
                continue
            }
            result.unicodeScalars.append(scalar)
        }
        return result
    }
}
