import PushCore

/// `Glob`: the pattern is the input up to its first newline, the text the rest. Whether it
/// parses, and whether it matches, must agree with a second reading of the same syntax matched
/// the slow and obvious way (a table over every pattern part and text position, so only for
/// inputs of up to 4 KiB: the table is pattern × text); its errors are one short line. Inputs
/// go up to 140,000 bytes (a config line's 4 KiB pattern on a 128 KiB text), so a matcher whose
/// cost were pattern × text, or that backtracked without bound, would hit `Fuzz/run`'s
/// per-input timeout (the `worst-*` seeds are such inputs).
func fuzz(_ input: UnsafeBufferPointer<UInt8>) {
    let bytes = Array(input)
    let split = bytes.firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
    let pattern = String(decoding: bytes[..<split], as: UTF8.self)
    let text = String(decoding: bytes[min(split + 1, bytes.count)...], as: UTF8.self)
    let glob: Glob
    guard bytes.count <= 4096 else {
        _ = try? Glob(parsing: pattern).matches(text)
        return
    }
    let reference = Reference(pattern)
    do {
        glob = try Glob(parsing: pattern)
    } catch {
        invariant(reference.parts == nil, "Glob refused \(pattern.debugDescription), the reference did not")
        invariant(isOneLine(error.description) && error.description.count <= 200, "the error is \(error.description.debugDescription)")
        return
    }
    invariant(reference.parts != nil, "Glob took \(pattern.debugDescription), the reference refused it")
    invariant(glob.matches(text) == reference.matches(text),
              "\(pattern.debugDescription) on \(text.debugDescription): Glob says \(glob.matches(text))")
    // A pattern of the text with every character escaped is the text itself.
    let escaped = text.unicodeScalars.map { "\\" + String($0) }.joined()
    if let exact = try? Glob(parsing: escaped) {
        invariant(exact.matches(text), "the escaped text \(escaped.debugDescription) does not match itself")
        invariant(!exact.matches(text + "x"), "the escaped text \(escaped.debugDescription) matches more")
    }
}

/// The syntax read again, independently: `*`, `?`, `[...]` (`!` or `^` negates, a first `]`
/// and a `-` first or last are plain, `a-z` ranges), `\` escapes.
private struct Reference {
    enum Part {
        case plain(Unicode.Scalar)
        case any
        case star
        case set([ClosedRange<UInt32>], negated: Bool)
    }

    let parts: [Part]?

    init(_ pattern: String) {
        let scalars = Array(pattern.unicodeScalars)
        var parts: [Part] = []
        var index = 0
        func next() -> Unicode.Scalar? {
            guard index < scalars.count else { return nil }
            index += 1
            return scalars[index - 1]
        }
        func escaped(_ scalar: Unicode.Scalar) -> Unicode.Scalar? {
            scalar == "\\" ? next() : scalar
        }
        while let scalar = next() {
            switch scalar {
            case "*": parts.append(.star)
            case "?": parts.append(.any)
            case "\\":
                guard let plain = next() else { self.parts = nil; return }
                parts.append(.plain(plain))
            case "[":
                var negated = false
                if index < scalars.count, scalars[index] == "!" || scalars[index] == "^" {
                    negated = true
                    index += 1
                }
                var ranges: [ClosedRange<UInt32>] = []
                var closed = false
                while let raw = next() {
                    if raw == "]" && !ranges.isEmpty { closed = true; break }
                    guard let low = escaped(raw) else { self.parts = nil; return }
                    if index + 1 < scalars.count, scalars[index] == "-", scalars[index + 1] != "]" {
                        index += 1
                        guard let rawHigh = next(), let high = escaped(rawHigh), low.value <= high.value else {
                            self.parts = nil
                            return
                        }
                        ranges.append(low.value...high.value)
                    } else {
                        ranges.append(low.value...low.value)
                    }
                }
                guard closed else { self.parts = nil; return }
                parts.append(.set(ranges, negated: negated))
            default:
                parts.append(.plain(scalar))
            }
        }
        self.parts = parts
    }

    /// `fits[p][t]`: the parts from `p` match the text from `t`.
    func matches(_ text: String) -> Bool {
        guard let parts else { return false }
        let scalars = Array(text.unicodeScalars)
        let width = scalars.count + 1
        var fits = [Bool](repeating: false, count: (parts.count + 1) * width)
        fits[parts.count * width + scalars.count] = true
        for p in stride(from: parts.count - 1, through: 0, by: -1) {
            for t in stride(from: scalars.count, through: 0, by: -1) {
                let one: Bool
                switch parts[p] {
                case .star:
                    fits[p * width + t] = fits[(p + 1) * width + t] || (t < scalars.count && fits[p * width + t + 1])
                    continue
                case .plain(let scalar): one = t < scalars.count && scalars[t] == scalar
                case .any: one = t < scalars.count
                case .set(let ranges, let negated):
                    one = t < scalars.count && ranges.contains { $0.contains(scalars[t].value) } != negated
                }
                fits[p * width + t] = one && fits[(p + 1) * width + t + 1]
            }
        }
        return fits[0]
    }
}
