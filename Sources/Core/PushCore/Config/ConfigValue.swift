/// The value of one config line, read as the type its key wants. Every failure names the line
/// and the key and says what would be accepted.
struct ConfigValue {
    let line: Int
    /// The section's header, nil for a global key.
    var section: String? = nil
    let key: String
    /// Trimmed, quotes still in place.
    let raw: String

    func error(_ reason: String) -> ConfigError {
        ConfigError(line: line, section: section, key: key, reason: reason)
    }

    /// The value with one pair of surrounding double quotes removed, never empty.
    func text() throws(ConfigError) -> String {
        var value = Substring(raw)
        if value.hasPrefix("\"") {
            guard value.count >= 2, value.hasSuffix("\"") else {
                throw error("\(ConfigError.quoted(raw)) opens a double quote but does not close it")
            }
            value = value.dropFirst().dropLast()
        }
        guard !value.isEmpty else {
            throw error("the value is empty; remove the line to use the default")
        }
        return String(value)
    }

    /// Whole seconds within `range`.
    func seconds(in range: ClosedRange<Int>) throws(ConfigError) -> Int {
        try wholeNumber(in: range, unit: " seconds")
    }

    /// A whole number within `range`.
    func integer(in range: ClosedRange<Int>) throws(ConfigError) -> Int {
        try wholeNumber(in: range, unit: "")
    }

    private func wholeNumber(in range: ClosedRange<Int>, unit: String) throws(ConfigError) -> Int {
        let text = try text()
        let digits = text.utf8
        guard digits.allSatisfy(ASCII.isDigit) else {
            throw error("\(ConfigError.quoted(text)) is not a whole number\(unit.isEmpty ? "" : " of\(unit)")")
        }
        // All digits but no value: too large for Int64, so above any maximum.
        let value = ASCII.decimalValue(digits, limit: Int64(range.upperBound)).map(Int.init)
        guard let value, value <= range.upperBound else {
            throw error("\(ConfigError.quoted(text)) is above the maximum of \(range.upperBound)\(unit)")
        }
        guard value >= range.lowerBound else {
            throw error("\(ConfigError.quoted(text)) is below the minimum of \(range.lowerBound)\(unit)")
        }
        return value
    }

    func boolean() throws(ConfigError) -> Bool {
        let text = try text()
        switch text {
        case "true", "yes", "on", "1": return true
        case "false", "no", "off", "0": return false
        default:
            throw error("\(ConfigError.quoted(text)) is not a boolean; use true or false (or yes/no, on/off, 1/0)")
        }
    }

    /// One of an enumeration's raw values, spelled exactly.
    func choice<Choice: RawRepresentable & CaseIterable>(
        _: Choice.Type
    ) throws(ConfigError) -> Choice where Choice.RawValue == String {
        let text = try text()
        guard let choice = Choice(rawValue: text) else {
            let names = Choice.allCases.map(\.rawValue)
            throw error("\(ConfigError.quoted(text)) is not one of \(names.joined(separator: ", "))")
        }
        return choice
    }

    /// Words split on spaces and tabs, where double quotes group words with spaces into one
    /// (`"/opt/my term/bin/t" --exec` is two words) and are themselves removed, as a shell would
    /// split them but without any expansion or escapes. So a lone `"kitty -e"` is one word, a
    /// program whose name has a space.
    func words() throws(ConfigError) -> [String] {
        var words: [String] = []
        var word = String.UnicodeScalarView()
        var isInWord = false
        var isQuoted = false
        for scalar in raw.unicodeScalars {
            if scalar == "\"" {
                isQuoted.toggle()
                isInWord = true
            } else if !isQuoted && (scalar == " " || scalar == "\t") {
                if isInWord { words.append(String(word)) }
                word = String.UnicodeScalarView()
                isInWord = false
            } else {
                word.append(scalar)
                isInWord = true
            }
        }
        guard !isQuoted else {
            throw error("\(ConfigError.quoted(raw)) opens a double quote but does not close it")
        }
        if isInWord { words.append(String(word)) }
        guard words.contains(where: { !$0.isEmpty }) else {
            throw error("the value is empty; remove the line to use the default")
        }
        guard !words.contains("") else {
            throw error("\(ConfigError.quoted(raw)) contains an empty argument (\"\")")
        }
        return words
    }

    /// Names of `NoticeButton` separated by commas (blanks around them ignored), each once, in
    /// the order of priority; `none` for no buttons at all.
    func buttons() throws(ConfigError) -> [NoticeButton] {
        let text = try text()
        if text == "none" { return [] }
        var buttons: [NoticeButton] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let name = String(String(part).trimmingWhitespace)
            guard let button = NoticeButton(rawValue: name) else {
                let names = NoticeButton.allCases.map(\.rawValue).joined(separator: ", ")
                throw error("\(ConfigError.quoted(name)) is not a button; name some of \(names), separated by commas, or none")
            }
            guard !buttons.contains(button) else {
                throw error("\(button.rawValue) is named twice; name each button once")
            }
            buttons.append(button)
        }
        return buttons
    }
}
