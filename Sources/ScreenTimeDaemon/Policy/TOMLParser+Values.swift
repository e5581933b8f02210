import Foundation

// Numbers, dates and times, inline tables and strings: the values of `TOMLParser`.
extension TOMLParser {
    /// An integer (decimal, `0x`, `0o`, `0b`), a float, or a date or time, by its shape.
    mutating func parseNumberOrDate() throws(PolicyError) -> TOMLValue {
        let start = position
        var word = takeWord()
        // A date and a time may be separated by one space: `1979-05-27 07:32:00`.
        if word.count == 10, word.filter({ $0 == "-" }).count == 2, current == " ", let next = peek(1),
            ("0"..."9").contains(next)
        {
            advance()
            word += " " + takeWord()
        }
        if let value = Self.dateTime(word) { return TOMLValue(kind: .dateTime(value), position: start) }
        let lowered = word.lowercased()
        if word.contains(":") || (word.dropFirst().contains("-") && !lowered.contains("e-")) {
            throw PolicyError(
                at: start, in: file,
                "`\(word)` is not a TOML date or time; write a time of day as a string: \"\(word)\"")
        }
        var digits = Substring(word)
        var negative = false
        if let sign = digits.first, sign == "+" || sign == "-" {
            negative = sign == "-"
            digits = digits.dropFirst()
        }
        if digits == "inf" { return TOMLValue(kind: .float(negative ? -.infinity : .infinity), position: start) }
        if digits == "nan" { return TOMLValue(kind: .float(.nan), position: start) }
        func underscoresValid(_ text: Substring) -> Bool {
            !text.isEmpty && text.first != "_" && text.last != "_" && !text.contains("__")
        }
        for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] where digits.hasPrefix(prefix) {
            let body = digits.dropFirst(2)
            guard word.first != "+" && word.first != "-", underscoresValid(body),
                let value = Int64(String(body.filter { $0 != "_" }), radix: radix)
            else { throw PolicyError(at: start, in: file, "`\(word)` is not a valid number") }
            return TOMLValue(kind: .integer(value), position: start)
        }
        let isFloat = digits.contains { $0 == "." || $0 == "e" || $0 == "E" }
        let valid =
            underscoresValid(digits) && digits.allSatisfy { $0.isASCII && ($0.isNumber || "_.eE+-".contains($0)) }
            && !digits.contains("_.") && !digits.contains("._")
        guard valid else { throw PolicyError(at: start, in: file, "`\(word)` is not a number") }
        let plain = String(digits.filter { $0 != "_" })
        let integerPart = plain.prefix { $0.isNumber }
        if integerPart.count > 1 && integerPart.first == "0" {
            throw PolicyError(at: start, in: file, "`\(word)`: leading zeros are not allowed")
        }
        if isFloat {
            guard !plain.hasPrefix("."), !plain.hasSuffix("."), !plain.contains(".e"), !plain.contains(".E"),
                let value = Double(plain)
            else { throw PolicyError(at: start, in: file, "`\(word)` is not a valid floating-point number") }
            return TOMLValue(kind: .float(negative ? -value : value), position: start)
        }
        guard let value = Int64(negative ? "-" + plain : plain) else {
            throw PolicyError(at: start, in: file, "`\(word)` is too large")
        }
        return TOMLValue(kind: .integer(value), position: start)
    }

    /// `word` when it is a TOML date-time, date or time (`1979-05-27T07:32:00Z`, `1979-05-27`, `07:32:00.999`).
    static func dateTime(_ word: String) -> String? {
        let pattern =
            #"^(\d{4}-\d{2}-\d{2}([Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})?)?|\d{2}:\d{2}:\d{2}(\.\d+)?)$"#
        return word.range(of: pattern, options: .regularExpression) != nil ? word : nil
    }

    /// `{ key = value, … }` on one line, nested no deeper than `maximumNesting`.
    mutating func parseInlineTable() throws(PolicyError) -> [TOMLTable.Entry] {
        guard depth < Self.maximumNesting else {
            throw error("tables and arrays nested more than \(Self.maximumNesting) deep; a policy needs at most two levels")
        }
        depth += 1
        defer { depth -= 1 }
        advance()  // {
        var entries: [TOMLTable.Entry] = []
        skipSpaces()
        if current == "}" {
            advance()
            return entries
        }
        while true {
            skipSpaces()
            let keyPosition = position
            let keys = try parseDottedKey()
            guard current == "=" else { throw error("expected `=` after the key `\(keys.joined(separator: "."))`") }
            advance()
            skipSpaces()
            try add(Self.entry(keys, at: keyPosition, value: try parseValue()), to: &entries)
            skipSpaces()
            if current == "," {
                advance()
                continue
            }
            guard current == "}" else {
                throw error("expected `,` or `}` in the inline table (it must stay on one line)")
            }
            advance()
            return entries
        }
    }

    /// A multi-line string: basic (escapes; a backslash ending a line joins it to the next) or literal (as written).
    /// A newline right after the opening quotes is dropped.
    mutating func parseMultiLineString(literal: Bool) throws(PolicyError) -> String {
        let quote: Unicode.Scalar = literal ? "'" : "\""
        advance(3)
        if current == "\r" && peek(1) == "\n" { advance() }
        if current == "\n" { try consumeNewline() }
        var text = ""
        while true {
            guard let scalar = current else { throw error("unterminated multi-line string") }
            if scalar == quote && peek(1) == quote && peek(2) == quote {
                advance(3)
                // Up to two more quotes belong to the string.
                for _ in 0..<2 where current == quote {
                    text.unicodeScalars.append(quote)
                    advance()
                }
                return text
            }
            if isNewline(scalar) {
                try consumeNewline()
                text.unicodeScalars.append("\n")
                continue
            }
            advance()
            if !literal && scalar == "\\" {
                var lookahead = index
                while lookahead < scalars.count, scalars[lookahead] == " " || scalars[lookahead] == "\t" {
                    lookahead += 1
                }
                if lookahead < scalars.count, isNewline(scalars[lookahead]) {
                    index = lookahead
                    while let next = current, next == " " || next == "\t" || isNewline(next) {
                        if isNewline(next) { try consumeNewline() } else { advance() }
                    }
                    continue
                }
                text.unicodeScalars.append(try parseEscape())
                continue
            }
            if scalar != "\t" && (scalar.value < 0x20 || scalar.value == 0x7F) {
                throw error("control character U+\(hex(scalar.value)) in a string; write it as an escape")
            }
            text.unicodeScalars.append(scalar)
        }
    }

    mutating func parseBasicString() throws(PolicyError) -> String {
        advance()  // "
        var text = ""
        while true {
            guard let scalar = current, !isNewline(scalar) else {
                throw error("unterminated string; close it with `\"` on the same line")
            }
            advance()
            switch scalar {
            case "\"":
                return text
            case "\\":
                text.unicodeScalars.append(try parseEscape())
            case "\t":
                text.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    throw error("control character U+\(hex(scalar.value)) in a string; write it as an escape")
                }
                text.unicodeScalars.append(scalar)
            }
        }
    }

    mutating func parseEscape() throws(PolicyError) -> Unicode.Scalar {
        let start = SourcePosition(line: line, column: index - lineStart)
        guard let scalar = current else { throw error("unterminated string") }
        advance()
        switch scalar {
        case "b": return "\u{08}"
        case "t": return "\t"
        case "n": return "\n"
        case "f": return "\u{0C}"
        case "r": return "\r"
        case "\"": return "\""
        case "\\": return "\\"
        case "u", "U":
            let count = scalar == "u" ? 4 : 8
            var digits = ""
            for _ in 0..<count {
                guard let digit = current, digit.properties.isASCIIHexDigit else {
                    throw PolicyError(
                        at: start, in: file, "`\\\(scalar)` needs \(count) hexadecimal digits, e.g. `\\u00E9`")
                }
                digits.unicodeScalars.append(digit)
                advance()
            }
            guard let value = UInt32(digits, radix: 16), let result = Unicode.Scalar(value) else {
                throw PolicyError(at: start, in: file, "`\\\(scalar)\(digits)` is not a Unicode scalar value")
            }
            return result
        default:
            throw PolicyError(
                at: start, in: file, "unknown escape `\\\(scalar)`; write `\\\\` for a backslash")
        }
    }

    mutating func parseLiteralString() throws(PolicyError) -> String {
        advance()  // '
        var text = ""
        while true {
            guard let scalar = current, !isNewline(scalar) else {
                throw error("unterminated string; close it with `'` on the same line")
            }
            advance()
            if scalar == "'" { return text }
            text.unicodeScalars.append(scalar)
        }
    }
}
