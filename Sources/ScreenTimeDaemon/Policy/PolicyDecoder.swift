import Foundation
import ScreenTimeModel

/// Turns a parsed TOML document into a `Policy`, refusing unknown keys, wrong types, unknown categories, bad
/// durations and times, and duplicate names, each at its exact position.
struct PolicyDecoder {
    let file: String

    /// Decodes the whole document, checking every table: all its mistakes are thrown together (see
    /// `PolicyError.all`), in the order they appear in the file.
    func decode(_ document: TOMLDocument) throws(PolicyError) -> Policy {
        var errors: [PolicyError] = []
        // `shield = { … }` and `shield.extra = …` are the table `[shield]` written another way.
        var document = document
        for entry in document.root.entries {
            guard case .table(let entries) = entry.value.kind else { continue }
            if let header = document.tables[entry.key] {
                errors.append(
                    PolicyError(
                        at: header.position, in: file,
                        "table `[\(entry.key)]` is already defined on line \(entry.keyPosition.line)"))
            }
            document.tables[entry.key] = TOMLTable(position: entry.keyPosition, entries: entries)
        }
        document.root.entries.removeAll { if case .table = $0.value.kind { true } else { false } }
        func collect<Value>(_ body: () throws(PolicyError) -> Value) -> Value? {
            do { return try body() } catch {
                errors += error.all
                return nil
            }
        }
        let topLevel = ["always_allowed", "limit", "downtime", "shield"]
        for entry in document.root.entries where !topLevel.contains(entry.key) {
            errors.append(unknownKey(entry.key, at: entry.keyPosition, expected: topLevel, in: "the top level"))
        }
        for (name, table) in document.tables where name != "shield" {
            let hint = ["limit", "downtime"].contains(name) ? "; write `[[\(name)]]`: there can be several" : ""
            errors.append(PolicyError(at: table.position, in: file, "unknown table `[\(name)]`\(hint)"))
        }
        for (name, tables) in document.tableArrays where !["limit", "downtime"].contains(name) {
            let hint = name == "shield" ? "; write `[shield]`: there is only one" : ""
            errors.append(PolicyError(at: tables[0].position, in: file, "unknown table `[[\(name)]]`\(hint)"))
        }

        let root = TableReader(table: document.root, file: file, context: "the top level")
        var limits: [Policy.Limit] = []
        var limitNames: [String: SourcePosition] = [:]
        for table in document.tableArrays["limit"] ?? [] {
            guard
                let (limit, namePosition) = collect({ () throws(PolicyError) in
                    try decodeLimit(TableReader(table: table, file: file, context: "[[limit]]"))
                })
            else { continue }
            if let first = limitNames[limit.name] {
                errors.append(
                    PolicyError(
                        at: namePosition, in: file,
                        "duplicate limit name \"\(limit.name)\"; line \(first.line) already uses it"))
                continue
            }
            limitNames[limit.name] = namePosition
            limits.append(limit)
        }
        var downtimes: [Policy.Downtime] = []
        var downtimeNames: [String: SourcePosition] = [:]
        for table in document.tableArrays["downtime"] ?? [] {
            guard
                let (downtime, namePosition) = collect({ () throws(PolicyError) in
                    try decodeDowntime(TableReader(table: table, file: file, context: "[[downtime]]"))
                })
            else { continue }
            if let first = downtimeNames[downtime.name] {
                errors.append(
                    PolicyError(
                        at: namePosition, in: file,
                        "duplicate downtime name \"\(downtime.name)\"; line \(first.line) already uses it"))
                continue
            }
            downtimeNames[downtime.name] = namePosition
            downtimes.append(downtime)
        }
        var shield = Policy.ShieldSettings()
        if let table = document.tables["shield"] {
            shield =
                collect({ () throws(PolicyError) in
                    try decodeShield(TableReader(table: table, file: file, context: "[shield]"))
                }) ?? shield
        }
        let alwaysAllowed = collect({ () throws(PolicyError) in try root.applications("always_allowed") }) ?? []
        if let error = PolicyError.combining(errors.sorted { ($0.line, $0.column) < ($1.line, $1.column) }) {
            throw error
        }
        return Policy(alwaysAllowed: alwaysAllowed, limits: limits, downtimes: downtimes, shield: shield)
    }

    private func decodeLimit(_ reader: TableReader) throws(PolicyError) -> (Policy.Limit, SourcePosition) {
        try reader.allowOnly(["name", "apps", "categories", "daily", "warning", "shield", "grace", "start", "end", "extension"])
        let name = try reader.name()
        let daily = try reader.requiredDuration("daily", allowZero: false)
        if daily.value > .seconds(86_400) {
            throw PolicyError(at: daily.position, in: file, "`daily` must be at most 24h; a day has no more")
        }
        let warning = try reader.duration("warning")
        if let warning, warning.value >= daily.value {
            throw PolicyError(
                at: warning.position, in: file,
                "`warning` must be shorter than `daily` (\(DurationText.format(daily.value)))")
        }
        let shieldMode: Policy.Limit.Shield
        let shieldText = try reader.string("shield")
        let grace = try reader.duration("grace")
        switch shieldText?.value {
        case nil, "freeze":
            if let grace {
                throw PolicyError(at: grace.position, in: file, "`grace` applies only to `shield = \"terminate\"`")
            }
            shieldMode = .freeze
        case "terminate":
            shieldMode = .terminate(grace: grace?.value ?? Policy.defaultTerminateGrace)
        case let other?:
            throw PolicyError(
                at: shieldText!.position, in: file, "unknown shield \"\(other)\"; expected \"freeze\" or \"terminate\"")
        }
        var window: (start: Policy.TimeOfDay, end: Policy.TimeOfDay)?
        if reader.has("start") || reader.has("end") {
            let start = try reader.timeOfDay("start")
            let end = try reader.timeOfDay("end")
            if start.value == end.value {
                throw PolicyError(at: end.position, in: file, "`end` equals `start`: the limit's window would be empty")
            }
            window = (start.value, end.value)
        }
        if reader.has("apps"), try reader.strings("apps").isEmpty {
            throw PolicyError(
                at: reader.position(of: "apps"), in: file,
                "`apps` is empty; name apps, or leave `apps` out to limit the categories (or, without them, all use)")
        }
        let limit = Policy.Limit(
            name: name.value, applications: try reader.applications("apps"),
            categories: try reader.categories("categories"), daily: daily.value, warning: warning?.value,
            shield: shieldMode, window: window, extensionPath: try reader.executablePath("extension"))
        return (limit, name.position)
    }

    private func decodeDowntime(_ reader: TableReader) throws(PolicyError) -> (Policy.Downtime, SourcePosition) {
        try reader.allowOnly(["name", "start", "end", "allow", "extension"])
        let name = try reader.name()
        let start = try reader.timeOfDay("start")
        let end = try reader.timeOfDay("end")
        if start.value == end.value {
            throw PolicyError(at: end.position, in: file, "`end` equals `start`: the downtime would be empty")
        }
        let downtime = Policy.Downtime(
            name: name.value, start: start.value, end: end.value, allowed: try reader.applications("allow"),
            extensionPath: try reader.executablePath("extension"))
        return (downtime, name.position)
    }

    private func decodeShield(_ reader: TableReader) throws(PolicyError) -> Policy.ShieldSettings {
        try reader.allowOnly(["message", "extra", "extra_times"])
        let extra = try reader.duration("extra")
        if let extra, extra.value == .zero {
            throw PolicyError(at: extra.position, in: file, "`extra` must be longer than 0; leave it out for none")
        }
        var times = 0
        if let value = try reader.integer("extra_times") {
            guard (0...100).contains(value.value) else {
                throw PolicyError(at: value.position, in: file, "`extra_times` must be between 0 and 100")
            }
            times = Int(value.value)
        } else if extra != nil {
            times = 1
        }
        return Policy.ShieldSettings(
            message: try reader.string("message")?.value, extraTime: extra?.value, extraTimesPerDay: times)
    }

    private func unknownKey(_ key: String, at position: SourcePosition, expected: [String], in context: String)
        -> PolicyError
    {
        PolicyError.unknownKey(key, at: position, in: file, expected: expected, context: context)
    }
}

extension PolicyError {
    /// An unknown key, with the nearest known one when it is a likely typo.
    static func unknownKey(
        _ key: String, at position: SourcePosition, in file: String, expected: [String], context: String
    ) -> PolicyError {
        let nearest = expected.map { ($0, editDistance($0, key)) }.min { $0.1 < $1.1 }
        let hint = nearest.flatMap { $0.1 <= max(2, key.count / 3) ? "did you mean `\($0.0)`? " : nil } ?? ""
        return PolicyError(
            at: position, in: file,
            "unknown key `\(key)` in \(context); \(hint)expected one of: \(expected.joined(separator: ", "))")
    }

    /// Levenshtein distance between two short strings.
    static func editDistance(_ first: String, _ second: String) -> Int {
        let a = Array(first.lowercased()), b = Array(second.lowercased())
        var row = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let saved = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = saved
            }
        }
        return a.isEmpty ? b.count : row[b.count]
    }
}

/// Typed access to one table's keys, with errors at the value's position.
private struct TableReader {
    let table: TOMLTable
    let file: String
    let context: String

    struct Located<Value> {
        var value: Value
        var position: SourcePosition
    }

    func allowOnly(_ keys: [String]) throws(PolicyError) {
        let unknown = table.entries.filter { !keys.contains($0.key) }.map { entry in
            PolicyError.unknownKey(entry.key, at: entry.keyPosition, in: file, expected: keys, context: context)
        }
        if let error = PolicyError.combining(unknown) { throw error }
    }

    /// Where `key`'s value is, or the table's header when it is absent.
    func position(of key: String) -> SourcePosition { table.entry(key)?.value.position ?? table.position }

    /// An absolute path to a monitor extension, or nil when the key is absent.
    func executablePath(_ key: String) throws(PolicyError) -> String? {
        guard let path = try string(key, expected: "a path string like \"/usr/local/bin/my-monitor\"") else {
            return nil
        }
        guard path.value.hasPrefix("/") else {
            throw PolicyError(
                at: path.position, in: file, "`\(key)` must be an absolute path to an executable, not \"\(path.value)\"")
        }
        return path.value
    }

    /// Whether the table sets `key`.
    func has(_ key: String) -> Bool { table.entry(key) != nil }

    func name() throws(PolicyError) -> Located<String> {
        guard let name = try string("name") else {
            throw PolicyError(at: table.position, in: file, "\(context) needs a `name = \"…\"`")
        }
        guard !name.value.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw PolicyError(at: name.position, in: file, "`name` must not be empty")
        }
        return name
    }

    func string(_ key: String, expected: String = "a string") throws(PolicyError) -> Located<String>? {
        guard let value = table.entry(key)?.value else { return nil }
        guard case .string(let text) = value.kind else { throw wrongType(key, value, expected: expected) }
        return Located(value: text, position: value.position)
    }

    func integer(_ key: String) throws(PolicyError) -> Located<Int64>? {
        guard let value = table.entry(key)?.value else { return nil }
        guard case .integer(let number) = value.kind else { throw wrongType(key, value, expected: "an integer") }
        return Located(value: number, position: value.position)
    }

    func strings(_ key: String) throws(PolicyError) -> [Located<String>] {
        guard let value = table.entry(key)?.value else { return [] }
        guard case .array(let elements) = value.kind else {
            throw wrongType(key, value, expected: "an array of strings like [\"a\", \"b\"]")
        }
        var result: [Located<String>] = []
        for element in elements {
            guard case .string(let text) = element.kind else {
                throw PolicyError(
                    at: element.position, in: file,
                    "`\(key)` must hold only strings, found \(element.typeDescription)")
            }
            result.append(Located(value: text, position: element.position))
        }
        return result
    }

    func applications(_ key: String) throws(PolicyError) -> [AppID] {
        var seen: Set<String> = []
        var result: [AppID] = []
        for name in try strings(key) {
            let text = name.value
            if text.isEmpty || text.contains("/") || text.contains(where: \.isWhitespace) {
                throw PolicyError(
                    at: name.position, in: file,
                    "\"\(text)\" is not an app name; use a desktop-entry id (org.gnome.Calculator) or an executable's "
                        + "file name without a path (supertuxkart)")
            }
            let id = text.hasSuffix(".desktop") ? String(text.dropLast(".desktop".count)) : text
            if seen.insert(id).inserted { result.append(AppID(id)) }
        }
        return result
    }

    func categories(_ key: String) throws(PolicyError) -> [ActivityCategory] {
        var result: [ActivityCategory] = []
        for name in try strings(key) {
            guard let category = ActivityCategory(rawValue: name.value) else {
                let valid = ActivityCategory.allCases.map(\.rawValue).joined(separator: ", ")
                throw PolicyError(
                    at: name.position, in: file, "unknown category \"\(name.value)\"; valid categories: \(valid)")
            }
            if !result.contains(category) { result.append(category) }
        }
        return result
    }

    func duration(_ key: String) throws(PolicyError) -> Located<Duration>? {
        guard let text = try string(key, expected: "a duration string like \"20m\" or \"1h30m\"") else { return nil }
        guard let duration = DurationText.parse(text.value) else {
            throw PolicyError(
                at: text.position, in: file,
                "bad duration \"\(text.value)\"; write hours, minutes and seconds like \"1h30m\", \"45s\", \"2h\"")
        }
        if duration == .zero {
            throw PolicyError(at: text.position, in: file, "`\(key)` must be longer than 0")
        }
        return Located(value: duration, position: text.position)
    }

    func requiredDuration(_ key: String, allowZero: Bool) throws(PolicyError) -> Located<Duration> {
        guard let duration = try duration(key) else {
            throw PolicyError(at: table.position, in: file, "\(context) needs `\(key) = \"…\"`, e.g. \"1h30m\"")
        }
        return duration
    }

    func timeOfDay(_ key: String) throws(PolicyError) -> Located<Policy.TimeOfDay> {
        guard let text = try string(key, expected: "a time string like \"21:30\"") else {
            throw PolicyError(at: table.position, in: file, "\(context) needs `\(key) = \"HH:MM\"`")
        }
        let parts = text.value.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }),
            let hour = Int(parts[0]), let minute = Int(parts[1]), (0...23).contains(hour), (0...59).contains(minute),
            let second = parts.count == 3 ? Int(parts[2]) : 0, (0...59).contains(second)
        else {
            throw PolicyError(
                at: text.position, in: file,
                "bad time \"\(text.value)\"; write 24-hour HH:MM (or HH:MM:SS), e.g. \"07:00\"")
        }
        return Located(value: Policy.TimeOfDay(hour: hour, minute: minute, second: second), position: text.position)
    }

    private func wrongType(_ key: String, _ value: TOMLValue, expected: String) -> PolicyError {
        PolicyError(
            at: value.position, in: file, "`\(key)` must be \(expected), not \(value.typeDescription)")
    }
}
