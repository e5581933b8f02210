extension String {
    /// The text with every character a terminal would act on made visible: C0 controls, DEL and C1 controls as
    /// `\e`, `\t`, `\r`, `\x07`, `\u{9b}`, and the bidirectional overrides and isolates (U+202A–U+202E,
    /// U+2066–U+2069) that reorder what follows them. Process and app names come from their processes and desktop
    /// entries: whoever wrote them may have put escape codes in them. Line feeds stay when `keepingLineFeeds` (for
    /// a whole table printed at once).
    public func escapingControlCharacters(keepingLineFeeds: Bool = false) -> String {
        guard unicodeScalars.contains(where: { $0.needsEscape && !(keepingLineFeeds && $0 == "\n") }) else {
            return self
        }
        var result = ""
        for scalar in unicodeScalars {
            if !scalar.needsEscape || (keepingLineFeeds && scalar == "\n") {
                result.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\u{1B}": result += "\\e"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            case "\n": result += "\\n"
            default:
                let hex = String(scalar.value, radix: 16)
                result += scalar.value < 0x80 ? "\\x" + (hex.count < 2 ? "0" + hex : hex) : "\\u{\(hex)}"
            }
        }
        return result
    }
}

extension Unicode.Scalar {
    /// Whether the scalar is shown as an escape in text for a terminal: a C0 or C1 control, DEL, or a bidirectional
    /// override or isolate.
    public var needsEscape: Bool {
        value < 0x20 || (0x7F...0x9F).contains(value) || (0x202A...0x202E).contains(value)
            || (0x2066...0x2069).contains(value)
    }
}
