/// Values that differ by weekday: `{ weekdays = "1h", weekend = "3h", fri = "2h" }`, and lists of days
/// (`["mon", "weekend"]`).
extension PolicyTableReader {
    /// The keys of a by-weekday table, groups first.
    static let dayKeys = ["weekdays", "weekend"] + Policy.Weekday.mondayFirst.map(\.abbreviation)

    /// The days a key or list item names: `weekdays` (Monday to Friday), `weekend`, or `mon` … `sun`.
    static func days(named name: String) -> [Policy.Weekday]? {
        switch name {
        case "weekdays": [.monday, .tuesday, .wednesday, .thursday, .friday]
        case "weekend": [.saturday, .sunday]
        default: Policy.Weekday.allCases.first { $0.abbreviation == name }.map { [$0] }
        }
    }

    /// A value that is either one for every day or a by-weekday table.
    enum ByWeekday<Value> {
        case everyDay(Located<Value>)
        case byDay([Policy.Weekday: Located<Value>], position: SourcePosition)

        /// The value on `day`, if any.
        func value(on day: Policy.Weekday) -> Located<Value>? {
            switch self {
            case .everyDay(let value): value
            case .byDay(let values, _): values[day]
            }
        }

        var position: SourcePosition {
            switch self {
            case .everyDay(let value): value.position
            case .byDay(_, let position): position
            }
        }
    }

    /// `key`'s value read by `read`, or a table of such values by weekday, the most specific key winning (`fri`
    /// over `weekdays`). nil when the key is missing or has mistakes (logged).
    func byWeekday<Value>(
        _ key: String, read: (String, TOMLValue) -> Located<Value>?
    ) -> ByWeekday<Value>? {
        guard let value = value(key) else { return nil }
        guard case .table = value.kind, let table = reader(of: value, context: "`\(key)`") else {
            return read(key, value).map { .everyDay($0) }
        }
        table.allowOnly(Self.dayKeys)
        guard !table.table.entries.isEmpty else {
            log.add(
                "`\(key)` names no day; write e.g. `\(key) = { weekdays = …, weekend = … }` or any of mon … sun",
                at: value.position)
            return nil
        }
        var result: [Policy.Weekday: Located<Value>] = [:]
        var valid = true
        // Groups first, so that a day's own key overrides its group's.
        for name in Self.dayKeys {
            guard let entry = table.table.entry(name) else { continue }
            guard let dayValue = read("\(key).\(name)", entry.value) else {
                valid = false
                continue
            }
            for day in Self.days(named: name) ?? [] { result[day] = dayValue }
        }
        return valid ? .byDay(result, position: value.position) : nil
    }

    /// A list of days, `["mon", "weekend"]`; nil when missing or with mistakes (logged).
    func weekdays(_ key: String) -> Located<Set<Policy.Weekday>>? {
        guard let names = strings(key) else { return nil }
        guard !names.value.isEmpty else {
            log.add(
                "`\(key)` is empty; name days like [\"mon\", \"weekend\"], or leave it out for every day",
                at: names.position)
            return nil
        }
        var days: Set<Policy.Weekday> = []
        var valid = true
        for name in names.value {
            guard let named = Self.days(named: name.value) else {
                let hint = KeySuggestion.closest(to: name.value, among: Self.dayKeys).map { "did you mean \"\($0)\"?" }
                log.add(
                    "unknown day \"\(name.value)\"; "
                        + (hint ?? "write mon, tue, wed, thu, fri, sat, sun, weekdays or weekend"), at: name.position)
                valid = false
                continue
            }
            days.formUnion(named)
        }
        return valid ? Located(value: days, position: names.position) : nil
    }

    /// The duration a value spells (a string), longer than zero.
    func duration(_ key: String, value: TOMLValue) -> Located<Duration>? {
        guard case .string(let text) = value.kind else {
            return wrongType(key, value, expected: "a duration string like \"20m\" or \"1h30m\"")
        }
        return duration(key, Located(value: text, position: value.position))
    }
}
