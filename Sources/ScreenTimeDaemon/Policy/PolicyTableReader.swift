import Foundation
import ScreenTimeModel

/// What decoding a policy found wrong, and where it names apps.
final class PolicyProblemLog {
    let file: String
    private(set) var problems: [PolicyError.Problem] = []
    /// "needs `key`" problems, which a syntax error on the key's line may have caused (reported only without one).
    private(set) var missingKeys: [PolicyError.Problem] = []
    private(set) var applications: [Policy.ApplicationMention] = []
    /// What is valid but most likely not what was meant (the policy still loads).
    private(set) var warnings: [PolicyError.Problem] = []

    init(file: String) { self.file = file }

    func warn(_ message: String, at position: SourcePosition) {
        warnings.append(PolicyError.Problem(at: position, in: file, "warning: " + message))
    }

    func add(_ message: String, at position: SourcePosition) {
        problems.append(PolicyError.Problem(at: position, in: file, message))
    }

    func addMissing(_ message: String, at position: SourcePosition) {
        missingKeys.append(PolicyError.Problem(at: position, in: file, message))
    }

    func mention(_ id: AppID, at position: SourcePosition) {
        applications.append(Policy.ApplicationMention(id: id, file: file, line: position.line, column: position.column))
    }
}

/// A value with where it was written.
struct Located<Value> {
    var value: Value
    var position: SourcePosition
}

/// Typed access to one table's keys. Each accessor returns nil for a missing or a wrong value, and logs what is
/// wrong at the value's position, so one pass reports every mistake.
struct PolicyTableReader {
    let document: TOMLDocument
    let table: TOMLTable
    let log: PolicyProblemLog
    /// How messages name the table: `[[limit]]`, `the top level`.
    let context: String

    /// Logs each key not in `keys`, suggesting the closest when one is near.
    func allowOnly(_ keys: [String], describe: (TOMLTable.Entry) -> String? = { _ in nil }) {
        for entry in table.entries where !keys.contains(entry.key) {
            let what = describe(entry) ?? "unknown key `\(entry.key)` in \(context)"
            if let suggestion = KeySuggestion.closest(to: entry.key, among: keys) {
                log.add("\(what); did you mean `\(suggestion)`?", at: entry.keyPosition)
            } else {
                log.add("\(what); expected one of: \(keys.joined(separator: ", "))", at: entry.keyPosition)
            }
        }
    }

    /// The value of `key`, if the table sets it.
    func value(_ key: String) -> TOMLValue? { table.entry(key)?.value }

    /// Whether the table sets `key`.
    func has(_ key: String) -> Bool { table.entry(key) != nil }

    /// A reader of the table `value` refers to.
    func reader(of value: TOMLValue, context: String) -> PolicyTableReader? {
        guard case .table(let index) = value.kind else { return nil }
        return PolicyTableReader(document: document, table: document[index], log: log, context: context)
    }

    func name() -> Located<String>? {
        guard let name = string("name") else {
            if !has("name") { log.addMissing("\(context) needs a `name = \"…\"`", at: table.position) }
            return nil
        }
        guard !name.value.trimmingCharacters(in: .whitespaces).isEmpty else {
            log.add("`name` must not be empty", at: name.position)
            return nil
        }
        let separates = { (character: Character) in character == "." || character == "@" || character.isNewline }
        if let bad = name.value.first(where: separates) {
            let suggestion = String(name.value.map { separates($0) ? "-" : $0 })
            log.add(
                "`name` must not hold \(bad.isNewline ? "a line break" : "`\(bad)`") (it separates the parts of the "
                    + "names the daemon gives activities); write \"\(suggestion)\"",
                at: name.position)
            return nil
        }
        return name
    }

    func string(_ key: String, expected: String = "a string") -> Located<String>? {
        guard let value = value(key) else { return nil }
        guard case .string(let text) = value.kind else { return wrongType(key, value, expected: expected) }
        return Located(value: text, position: value.position)
    }

    func integer(_ key: String) -> Located<Int64>? {
        guard let value = value(key) else { return nil }
        guard case .integer(let number) = value.kind else { return wrongType(key, value, expected: "an integer") }
        return Located(value: number, position: value.position)
    }

    /// An absolute path to a monitor extension.
    func executablePath(_ key: String) -> String? {
        guard let path = string(key, expected: "a path string like \"/usr/local/bin/my-monitor\"") else { return nil }
        guard path.value.hasPrefix("/") else {
            log.add("`\(key)` must be an absolute path to an executable, not \"\(path.value)\"", at: path.position)
            return nil
        }
        return path.value
    }

    func strings(_ key: String) -> Located<[Located<String>]>? {
        guard let value = value(key) else { return nil }
        guard case .array(let elements) = value.kind else {
            return wrongType(key, value, expected: "an array of strings like [\"a\", \"b\"]")
        }
        var result: [Located<String>] = []
        for element in elements {
            guard case .string(let text) = element.kind else {
                log.add("`\(key)` must hold only strings, found \(element.typeDescription)", at: element.position)
                continue
            }
            result.append(Located(value: text, position: element.position))
        }
        return Located(value: result, position: value.position)
    }

    /// App ids, without `.desktop` and without repeats; `allowEmpty: false` refuses `key = []`.
    func applications(_ key: String, allowEmpty: Bool = true) -> [AppID] {
        guard let names = strings(key) else { return [] }
        if names.value.isEmpty && !allowEmpty {
            log.add(
                "`\(key)` is empty; name at least one app, or leave `\(key)` out to count by `categories` alone",
                at: names.position)
        }
        var seen: Set<String> = []
        var result: [AppID] = []
        for name in names.value {
            let text = name.value
            if text.isEmpty || text.contains("/") || text.contains(where: \.isWhitespace) {
                log.add(
                    "\"\(text)\" is not an app name; use a desktop-entry id (org.gnome.Calculator) or an executable's "
                        + "file name without a path (supertuxkart)", at: name.position)
                continue
            }
            let id = AppID(text.hasSuffix(".desktop") ? String(text.dropLast(".desktop".count)) : text)
            log.mention(id, at: name.position)
            if seen.insert(id.rawValue).inserted { result.append(id) }
        }
        return result
    }

    func categories(_ key: String) -> [ActivityCategory] {
        var result: [ActivityCategory] = []
        let names = strings(key)
        if let names, names.value.isEmpty {
            // Without apps it would silently mean all use.
            log.add(
                "`\(key)` is empty; name at least one category, or leave `\(key)` out (a limit without `apps` and "
                    + "`categories` counts all use)", at: names.position)
        }
        for name in names?.value ?? [] {
            guard let category = ActivityCategory(rawValue: name.value) else {
                let valid = ActivityCategory.allCases.map(\.rawValue)
                let hint = KeySuggestion.closest(to: name.value, among: valid).map { "did you mean \"\($0)\"?" }
                log.add(
                    "unknown category \"\(name.value)\"; "
                        + (hint ?? "valid categories: \(valid.joined(separator: ", "))"), at: name.position)
                continue
            }
            if !result.contains(category) { result.append(category) }
        }
        return result
    }

    /// A duration (`"1h30m"`) longer than zero.
    func duration(_ key: String) -> Located<Duration>? {
        guard let text = string(key, expected: "a duration string like \"20m\" or \"1h30m\"") else { return nil }
        return duration(key, text)
    }

    /// The duration `text` spells, which must be longer than zero.
    func duration(_ key: String, _ text: Located<String>) -> Located<Duration>? {
        guard let duration = DurationText.parse(text.value) else {
            log.add(
                "bad duration \"\(text.value)\"; write hours, minutes and seconds like \"1h30m\", \"45s\", \"2h\"",
                at: text.position)
            return nil
        }
        guard duration > .zero else {
            log.add("`\(key)` must be longer than 0s", at: text.position)
            return nil
        }
        return Located(value: duration, position: text.position)
    }

    /// A time of day: a string `"21:30"` or `"21:30:15"`, or a TOML local time `21:30:00`.
    func timeOfDay(_ key: String) -> Located<Policy.TimeOfDay>? {
        guard let value = value(key) else {
            log.addMissing("\(context) needs `\(key) = \"HH:MM\"`", at: table.position)
            return nil
        }
        return timeOfDay(key, value)
    }

    /// The time of day `value` spells.
    func timeOfDay(_ key: String, _ value: TOMLValue) -> Located<Policy.TimeOfDay>? {
        if case .dateTime(let dateTime) = value.kind, dateTime.date == nil, let time = dateTime.time {
            return Located(
                value: Policy.TimeOfDay(hour: time.hour, minute: time.minute, second: min(time.second, 59)),
                position: value.position)
        }
        guard case .string(let text) = value.kind else {
            return wrongType(key, value, expected: "a time string like \"21:30\"")
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3,
            parts.allSatisfy({ $0.count == 2 && $0.allSatisfy { ("0"..."9").contains($0) } }),
            let hour = Int(parts[0]), let minute = Int(parts[1]), (0...23).contains(hour), (0...59).contains(minute),
            let second = parts.count == 3 ? Int(parts[2]) : 0, (0...59).contains(second)
        else {
            log.add(
                "bad time \"\(text)\"; write 24-hour HH:MM (or HH:MM:SS), e.g. \"07:00\"", at: value.position)
            return nil
        }
        return Located(value: Policy.TimeOfDay(hour: hour, minute: minute, second: second), position: value.position)
    }

    func wrongType<T>(_ key: String, _ value: TOMLValue, expected: String) -> T? {
        log.add("`\(key)` must be \(expected), not \(value.typeDescription)", at: value.position)
        return nil
    }
}

/// The nearest of some names to a misspelt one, by edit distance.
enum KeySuggestion {
    /// The name of `candidates` closest to `name` (ignoring case), when it is within a typo or two.
    static func closest(to name: String, among candidates: [String]) -> String? {
        let limit = min(2, max(1, name.count / 3))
        let scored = candidates.map { ($0, distance(name.lowercased(), $0.lowercased())) }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= limit else { return nil }
        return best.0
    }

    /// The edit distance: insertions, deletions, substitutions and swaps of neighbours turning `a` into `b`.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.unicodeScalars), b = Array(b.unicodeScalars)
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var before = Array(repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var row = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { row[j] = min(row[j], before[j - 2] + 1) }
            }
            (before, previous) = (previous, row)
        }
        return previous[b.count]
    }
}
