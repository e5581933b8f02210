import ScreenTimeModel

/// Turns a parsed TOML document into a `Policy`, logging every unknown key, wrong type, unknown category, bad
/// duration or time, empty selection and duplicate name at its exact position.
struct PolicyDecoder {
    let document: TOMLDocument
    let log: PolicyProblemLog
    var role: Policy.Role = .individual

    static let topLevelKeys = ["always_allowed", "limit", "downtime", "shield"]
    static let limitKeys = [
        "name", "apps", "categories", "daily", "warning", "shield", "grace", "start", "end", "extension",
    ]
    static let downtimeKeys = ["name", "days", "start", "end", "allow", "extension"]
    static let shieldKeys = ["message", "extra", "extra_times"]

    /// The policy as far as it could be read; it is meaningful only when the log stays empty.
    func decode() -> Policy {
        let root = PolicyTableReader(document: document, table: document.root, log: log, context: "the top level")
        root.allowOnly(role == .guardianDefault ? Self.topLevelKeys + ["exempt"] : Self.topLevelKeys) { entry in
            if entry.key == "exempt" {
                return role == .guardianUser
                    ? "`exempt` belongs in the default policy (/etc/screentime/default.toml), not in a user's own"
                    : "`exempt` is a guardian's key: it belongs in /etc/screentime/default.toml"
            }
            guard case .table(let index) = entry.value.kind, document[index].origin == .header else {
                return entry.isTableArray ? "unknown table `[[\(entry.key)]]`" : nil
            }
            return "unknown table `[\(entry.key)]`"
        }
        let limitTables = tableArray("limit", in: root)
        let downtimeTables = tableArray("downtime", in: root)
        var names = UniqueNames(log: log)
        let limits = limitTables.map { reader in
            let (limit, name) = decodeLimit(reader)
            if let name { names.check(name, kind: "limit") }
            return limit
        }
        let downtimes = downtimeTables.map { reader in
            let (downtime, name) = decodeDowntime(reader)
            if let name { names.check(name, kind: "downtime") }
            return downtime
        }
        let shield = shieldTable(in: root).map(decodeShield) ?? Policy.ShieldSettings()
        let exempt = role == .guardianDefault ? root.strings("exempt")?.value.map(\.value) ?? [] : []
        return Policy(
            alwaysAllowed: root.applications("always_allowed"), limits: limits, downtimes: downtimes, shield: shield,
            exempt: exempt)
    }

    // MARK: Tables

    /// The tables of `[[key]]` (or `key = [{ … }, …]`).
    private func tableArray(_ key: String, in root: PolicyTableReader) -> [PolicyTableReader] {
        guard let entry = root.table.entry(key) else { return [] }
        switch entry.value.kind {
        case .array(let elements):
            return elements.compactMap { element in
                guard let reader = root.reader(of: element, context: "[[\(key)]]") else {
                    log.add("`\(key)` must hold only tables, found \(element.typeDescription)", at: element.position)
                    return nil
                }
                return reader
            }
        case .table(let index) where document[index].origin == .header:
            log.add("unknown table `[\(key)]`; write `[[\(key)]]`: there can be several", at: entry.keyPosition)
            return []
        default:
            return root.wrongType(key, entry.value, expected: "an array of tables, written `[[\(key)]]`") ?? []
        }
    }

    private func shieldTable(in root: PolicyTableReader) -> PolicyTableReader? {
        guard let entry = root.table.entry("shield") else { return nil }
        if entry.isTableArray {
            log.add("unknown table `[[shield]]`; write `[shield]`: there is only one", at: entry.keyPosition)
            return nil
        }
        return root.reader(of: entry.value, context: "[shield]")
            ?? root.wrongType("shield", entry.value, expected: "a table, written `[shield]`")
    }

    // MARK: Limits, downtimes, shield

    private func decodeLimit(_ reader: PolicyTableReader) -> (Policy.Limit, name: Located<String>?) {
        reader.allowOnly(Self.limitKeys)
        let name = reader.name()
        let daily = dailyLimit(reader)
        let warning = reader.duration("warning")
        if let warning, let shortest = daily?.values.min(by: { $0.value < $1.value }), warning.value >= shortest.value {
            log.add(
                "`warning` must be shorter than `daily` (\(DurationText.format(shortest.value)))", at: warning.position)
        }
        let shield = shieldMode(reader)
        var window: (start: Policy.TimeOfDay, end: Policy.TimeOfDay)?
        if reader.has("start") || reader.has("end") {
            let start = reader.timeOfDay("start")
            let end = reader.timeOfDay("end")
            if let start, let end {
                if start.value == end.value {
                    log.add("`end` equals `start`: the limit's window would be empty", at: end.position)
                } else if let daily {
                    // Valid (a day's figure may stand for "no limit that day"), but never reached: the first such
                    // figure of the file is named.
                    let length = Self.length(from: start.value, to: end.value)
                    if let allowed = daily.values.filter({ $0.value > length }).min(by: { $0.position < $1.position }) {
                        log.warn(
                            "`daily` (\(DurationText.format(allowed.value))) is longer than the window from "
                                + "\(start.value) to \(end.value) (\(DurationText.format(length))): it is never reached",
                            at: allowed.position)
                    }
                }
                window = (start.value, end.value)
            }
        }
        var byWeekday: [Policy.Weekday: Duration]?
        if let daily, daily.keys.count < 7 || Set(daily.values.map(\.value)).count > 1 {
            byWeekday = daily.mapValues(\.value)
        }
        let limit = Policy.Limit(
            name: name?.value ?? "", applications: reader.applications("apps", allowEmpty: false),
            categories: reader.categories("categories"), daily: daily?.values.first?.value ?? .zero,
            warning: warning?.value, shield: shield, window: window, extensionPath: reader.executablePath("extension"),
            dailyByWeekday: byWeekday)
        return (limit, name)
    }

    /// How long a window from `start` to `end` lasts (past midnight when `end` comes first), on a day without a
    /// clock change.
    static func length(from start: Policy.TimeOfDay, to end: Policy.TimeOfDay) -> Duration {
        func seconds(_ time: Policy.TimeOfDay) -> Int { time.hour * 3600 + time.minute * 60 + time.second }
        return .seconds((seconds(end) - seconds(start) + 86_400) % 86_400)
    }

    /// `daily`, on each day it limits: longer than zero and at most a day.
    private func dailyLimit(_ reader: PolicyTableReader) -> [Policy.Weekday: Located<Duration>]? {
        guard reader.has("daily") else {
            log.addMissing("\(reader.context) needs `daily = \"…\"`, e.g. \"1h30m\"", at: reader.table.position)
            return nil
        }
        let daily = reader.byWeekday("daily") { (key: String, value: TOMLValue) -> Located<Duration>? in
            reader.duration(key, value: value).flatMap { (daily: Located<Duration>) -> Located<Duration>? in
                guard daily.value <= .seconds(86400) else {
                    log.add(
                        "`\(key)` is \(DurationText.format(daily.value)), more than a day; write at most \"24h\"",
                        at: daily.position)
                    return nil
                }
                return daily
            }
        }
        switch daily {
        case nil: return nil
        case .everyDay(let value)?: return Dictionary(uniqueKeysWithValues: Policy.Weekday.allCases.map { ($0, value) })
        case .byDay(let values, _)?: return values
        }
    }

    private func shieldMode(_ reader: PolicyTableReader) -> Policy.Limit.Shield {
        let text = reader.string("shield")
        let grace = reader.duration("grace")
        switch text?.value {
        case nil, "freeze":
            if let grace { log.add("`grace` applies only to `shield = \"terminate\"`", at: grace.position) }
            return .freeze
        case "terminate":
            return .terminate(grace: grace?.value ?? Policy.defaultTerminateGrace)
        case let other?:
            log.add("unknown shield \"\(other)\"; expected \"freeze\" or \"terminate\"", at: text!.position)
            return .freeze
        }
    }

    private func decodeDowntime(_ reader: PolicyTableReader) -> (Policy.Downtime, name: Located<String>?) {
        reader.allowOnly(Self.downtimeKeys)
        let name = reader.name()
        let days = reader.has("days") ? reader.weekdays("days") : nil
        var times: [PolicyTableReader.ByWeekday<Policy.TimeOfDay>?] = []
        for key in ["start", "end"] {
            if !reader.has(key) {
                log.addMissing("\(reader.context) needs `\(key) = \"HH:MM\"`", at: reader.table.position)
            }
            times.append(reader.byWeekday(key, read: reader.timeOfDay))
        }
        var spans: [Policy.Weekday: Policy.Span] = [:]
        if let start = times[0], let end = times[1], !reader.has("days") || days != nil {
            // Without `days`, the downtime keeps to the days its by-weekday times name.
            var named: Set<Policy.Weekday> = []
            for case .byDay(let values, _) in [start, end] { named.formUnion(values.keys) }
            let inForce = days?.value ?? (named.isEmpty ? Set(Policy.Weekday.allCases) : named)
            for day in Policy.Weekday.mondayFirst where inForce.contains(day) {
                let (dayStart, dayEnd) = (start.value(on: day), end.value(on: day))
                let on = days == nil && !isByDay(start) && !isByDay(end) ? "" : " on \(day.abbreviation)"
                guard let dayStart, let dayEnd else {
                    let (key, position) = dayStart == nil ? ("start", start.position) : ("end", end.position)
                    log.add(
                        "`\(key)` has no time for \(day.abbreviation); add `\(day.abbreviation) = \"HH:MM\"`",
                        at: position)
                    continue
                }
                if dayStart.value == dayEnd.value {
                    log.add("`end` equals `start`\(on): the downtime would be empty", at: dayEnd.position)
                    if on.isEmpty { break }
                    continue
                }
                spans[day] = Policy.Span(start: dayStart.value, end: dayEnd.value)
            }
        }
        let everyDay = days == nil && times.allSatisfy { $0.map { !isByDay($0) } ?? true }
        let midnight = Policy.TimeOfDay(hour: 0, minute: 0)
        let downtime = Policy.Downtime(
            name: name?.value ?? "", start: times[0]?.value(on: .monday)?.value ?? midnight,
            end: times[1]?.value(on: .monday)?.value ?? midnight, allowed: reader.applications("allow"),
            extensionPath: reader.executablePath("extension"), spansByWeekday: everyDay ? nil : spans)
        return (downtime, name)
    }

    private func isByDay<Value>(_ value: PolicyTableReader.ByWeekday<Value>) -> Bool {
        if case .byDay = value { return true }
        return false
    }

    private func decodeShield(_ reader: PolicyTableReader) -> Policy.ShieldSettings {
        reader.allowOnly(Self.shieldKeys)
        let extra = reader.duration("extra")
        var times = extra == nil ? 0 : 1
        if let value = reader.integer("extra_times") {
            if (0...100).contains(value.value) {
                times = Int(value.value)
            } else {
                log.add("`extra_times` must be between 0 and 100", at: value.position)
            }
        }
        return Policy.ShieldSettings(
            message: reader.string("message")?.value, extraTime: extra?.value, extraTimesPerDay: times)
    }
}

/// Limit and downtime names seen so far; a second use of one is logged.
private struct UniqueNames {
    let log: PolicyProblemLog
    private var seen: [String: [String: SourcePosition]] = [:]

    init(log: PolicyProblemLog) { self.log = log }

    mutating func check(_ name: Located<String>, kind: String) {
        if let first = seen[kind]?[name.value] {
            log.add("duplicate \(kind) name \"\(name.value)\"; line \(first.line) already uses it", at: name.position)
        } else {
            seen[kind, default: [:]][name.value] = name.position
        }
    }
}
