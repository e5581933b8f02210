/// The unquoted values of TOML 1.0: booleans, integers (decimal, `0x`, `0o`, `0b`, with `_` between digits),
/// floats (with `inf` and `nan`), and offset or local date-times, dates and times.
extension TOMLScanner {
    /// The unquoted value at the cursor.
    mutating func parseBareValue() throws(TOMLSyntaxError) -> TOMLValue.Kind {
        let start = position
        var word = takeWord()
        // A date and a time may be separated by one space instead of `T`.
        if isDate(word), current == " ", isDigit(peek(1)), isDigit(peek(2)), peek(3) == ":" {
            advance()
            word += "T" + takeWord()
        }
        let fail = { (message: String) in TOMLSyntaxError(position: start, message: message) }
        if word.isEmpty {
            guard let scalar = current, !Self.isNewline(scalar) else { throw fail("expected a value") }
            throw fail("expected a value, found `\(scalar)`")
        }
        switch word {
        case "true": return .boolean(true)
        case "false": return .boolean(false)
        case "inf", "+inf": return .float(.infinity)
        case "-inf": return .float(-.infinity)
        case "nan", "+nan", "-nan": return .float(.nan)
        default: break
        }
        let scalars = Array(word.unicodeScalars)
        if scalars.count >= 3 && isDigit(scalars[0]) && isDigit(scalars[1]) && scalars[2] == ":" {
            guard let time = Self.time(scalars[...]) else {
                throw fail("`\(word)` is not a time; write HH:MM:SS (21:30:00), or quote it: \"\(word)\"")
            }
            return .dateTime(TOMLDateTime(time: time))
        }
        if isDate(word) || (scalars.count > 10 && isDate(String(String.UnicodeScalarView(scalars[..<10])))) {
            guard let dateTime = Self.dateTime(scalars) else {
                throw fail(
                    "`\(word)` is not a date-time; write 1979-05-27, 1979-05-27T07:32:00 or 1979-05-27T07:32:00Z")
            }
            return .dateTime(dateTime)
        }
        guard let first = scalars.first, first == "+" || first == "-" || isDigit(first) else {
            throw fail("unknown value `\(word)`; strings need quotes: \"\(word)\"")
        }
        if let number = try Self.number(word, scalars, fail: fail) { return number }
        throw fail("`\(word)` is not a number")
    }

    /// Takes everything up to a space, comma, bracket, brace, comment or line end.
    private mutating func takeWord() -> String {
        var word = ""
        while let scalar = current, ![" ", "\t", ",", "]", "}", "#", "\n", "\r"].contains(scalar) {
            word.unicodeScalars.append(scalar)
            advance()
        }
        return word
    }

    private func isDigit(_ scalar: Unicode.Scalar?) -> Bool { scalar.map { ("0"..."9").contains($0) } ?? false }

    /// `YYYY-MM-DD` in shape (not yet checked).
    private func isDate(_ word: String) -> Bool {
        let scalars = Array(word.unicodeScalars)
        guard scalars.count == 10 else { return false }
        return scalars.indices.allSatisfy { [4, 7].contains($0) ? scalars[$0] == "-" : isDigit(scalars[$0]) }
    }

    // MARK: Numbers

    private static func number(
        _ word: String, _ scalars: [Unicode.Scalar], fail: (String) -> TOMLSyntaxError
    ) throws(TOMLSyntaxError) -> TOMLValue.Kind? {
        if scalars.count > 2 && scalars[0] == "0", let radix = ["x": 16, "o": 8, "b": 2][Character(scalars[1])] {
            guard let digits = digitRun(scalars[2...], radix: radix) else { return nil }
            guard let value = Int64(String(String.UnicodeScalarView(digits)), radix: radix) else {
                throw fail("`\(word)` is too large for a 64-bit integer")
            }
            return .integer(value)
        }
        var rest = scalars[...]
        var sign = ""
        if let first = rest.first, first == "+" || first == "-" {
            sign = first == "-" ? "-" : ""
            rest = rest.dropFirst()
        }
        let integerEnd = rest.firstIndex { $0 == "." || $0 == "e" || $0 == "E" } ?? rest.endIndex
        guard let integerDigits = digitRun(rest[..<integerEnd], radix: 10) else { return nil }
        if integerDigits.count > 1 && integerDigits.first == "0" {
            throw fail("`\(word)`: leading zeros are not allowed")
        }
        var text = sign + String(String.UnicodeScalarView(integerDigits))
        if integerEnd == rest.endIndex {
            guard let value = Int64(text) else { throw fail("`\(word)` is too large for a 64-bit integer") }
            return .integer(value)
        }
        var cursor = integerEnd
        if rest[cursor] == "." {
            let fractionEnd = rest[(cursor + 1)...].firstIndex { $0 == "e" || $0 == "E" } ?? rest.endIndex
            guard let fraction = digitRun(rest[(cursor + 1)..<fractionEnd], radix: 10) else { return nil }
            text += "." + String(String.UnicodeScalarView(fraction))
            cursor = fractionEnd
        }
        if cursor < rest.endIndex {
            var exponent = rest[(cursor + 1)...]
            var exponentSign = ""
            if let first = exponent.first, first == "+" || first == "-" {
                exponentSign = first == "-" ? "-" : ""
                exponent = exponent.dropFirst()
            }
            guard let digits = digitRun(exponent, radix: 10) else { return nil }
            text += "e" + exponentSign + String(String.UnicodeScalarView(digits))
        }
        guard let value = Double(text) else { return nil }
        return .float(value)
    }

    /// The digits of `scalars` without their underscores, when every underscore stands between two digits.
    private static func digitRun(_ scalars: ArraySlice<Unicode.Scalar>, radix: Int) -> [Unicode.Scalar]? {
        var digits: [Unicode.Scalar] = []
        var previousWasDigit = false
        for scalar in scalars {
            if scalar == "_" {
                guard previousWasDigit else { return nil }
                previousWasDigit = false
                continue
            }
            guard let value = hexDigitValue(scalar), value < radix else { return nil }
            digits.append(scalar)
            previousWasDigit = true
        }
        return previousWasDigit ? digits : nil
    }

    // MARK: Dates and times

    private static func dateTime(_ scalars: [Unicode.Scalar]) -> TOMLDateTime? {
        guard let year = decimal(scalars[0..<4]), let month = decimal(scalars[5..<7]),
            let day = decimal(scalars[8..<10]),
            (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        var result = TOMLDateTime(date: TOMLDateTime.Date(year: year, month: month, day: day))
        guard scalars.count > 10 else { return result }
        guard ["T", "t"].contains(scalars[10]) else { return nil }
        var rest = scalars[11...]
        var offset: Int?
        if let last = rest.last, last == "Z" || last == "z" {
            offset = 0
            rest = rest.dropLast()
        } else if rest.count > 6, ["+", "-"].contains(rest[rest.endIndex - 6]), rest[rest.endIndex - 3] == ":",
            let hours = decimal(rest.suffix(5).prefix(2)), let minutes = decimal(rest.suffix(2)),
            hours <= 23, minutes <= 59
        {
            offset = (hours * 60 + minutes) * (rest[rest.endIndex - 6] == "-" ? -1 : 1)
            rest = rest.dropLast(6)
        }
        guard let parsedTime = time(rest) else { return nil }
        result.time = parsedTime
        result.offsetMinutes = offset
        return result
    }

    /// `HH:MM:SS` with an optional fraction.
    private static func time(_ scalars: ArraySlice<Unicode.Scalar>) -> TOMLDateTime.Time? {
        let start = scalars.startIndex
        guard scalars.count >= 8, scalars[start + 2] == ":", scalars[start + 5] == ":",
            let hour = decimal(scalars[start..<start + 2]), let minute = decimal(scalars[start + 3..<start + 5]),
            let second = decimal(scalars[start + 6..<start + 8]), hour <= 23, minute <= 59, second <= 60
        else { return nil }
        var nanosecond = 0
        if scalars.count > 8 {
            let fraction = scalars[(start + 9)...]
            guard scalars[start + 8] == ".", !fraction.isEmpty, fraction.allSatisfy({ ("0"..."9").contains($0) }),
                let value = decimal(fraction.prefix(9))
            else { return nil }
            nanosecond = value
            for _ in fraction.prefix(9).count..<9 { nanosecond *= 10 }
        }
        return TOMLDateTime.Time(hour: hour, minute: minute, second: second, nanosecond: nanosecond)
    }

    /// The value of a run of decimal digits (at most 18, so it cannot overflow).
    private static func decimal(_ scalars: ArraySlice<Unicode.Scalar>) -> Int? {
        guard !scalars.isEmpty, scalars.count <= 18 else { return nil }
        var value = 0
        for scalar in scalars {
            guard ("0"..."9").contains(scalar) else { return nil }
            value = value * 10 + Int(scalar.value - 0x30)
        }
        return value
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
