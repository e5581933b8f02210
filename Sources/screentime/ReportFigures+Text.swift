import Foundation

extension ReportFigures {
    /// The figures as CSV: the rows of `by` with a header (see `ReportCommand`'s discussion for the columns), or
    /// for `--by summary` one line per figure (`figure,value,detail`).
    func csv() -> String {
        var lines: [String]
        switch by {
        case "app":
            lines =
                ["id,name,category,seconds"]
                + rows.map {
                    [csvField($0.id ?? ""), csvField($0.name ?? ""), $0.category ?? "", String($0.seconds)].joined(
                        separator: ",")
                }
        case "category":
            lines =
                ["id,name,seconds"]
                + rows.map {
                    [csvField($0.id ?? ""), csvField($0.name ?? ""), String($0.seconds)].joined(separator: ",")
                }
        case "summary":
            lines =
                ["figure,value,detail"]
                + summary().map { [$0.figure, csvField($0.value), csvField($0.detail)].joined(separator: ",") }
        default:
            lines =
                ["start,end,seconds,pickups,notifications,shielded_seconds,extra_time_seconds"]
                + rows.map { row in
                    [
                        row.start ?? "", row.end ?? "", String(row.seconds), String(row.pickups ?? 0),
                        String(row.notifications ?? 0),
                        String(row.shieldedSeconds ?? 0), String(row.extraTimeSeconds ?? 0),
                    ].joined(separator: ",")
                }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Every figure as `(figure, value, detail)`: what `--by summary` writes, one line each.
    func summary() -> [(figure: String, value: String, detail: String)] {
        var lines: [(String, String, String)] = [
            ("from", from, ""), ("to", to, ""), ("days", String(days), ""), ("total_seconds", String(totalSeconds), ""),
            ("daily_average_seconds", String(dailyAverageSeconds), ""),
            ("previous_daily_average_seconds", String(previous.dailyAverageSeconds), "\(previous.from)/\(previous.to)"),
            ("daily_average_change_percent", dailyAverageChangePercent.map(String.init) ?? "", ""),
            ("pickups", String(pickups), ""), ("first_pickup", firstPickup ?? "", ""),
            (
                "longest_session_seconds", longestSession.map { String($0.seconds) } ?? "",
                longestSession.map { "\($0.name) (\($0.id)) from \($0.start)" } ?? ""
            ),
        ]
        lines += topApps.map { ("app_seconds", String($0.seconds), "\($0.name) (\($0.id))") }
        lines += topCategories.map { ("category_seconds", String($0.seconds), $0.name) }
        lines += [
            (
                "notifications", String(notifications.total),
                "\(notifications.apps) from apps, \(notifications.warnings) warnings, \(notifications.shields) shields"
            ),
            ("shielded_seconds", String(shieldedSeconds), ""),
        ]
        lines += shielded.map { ("shielded_seconds", String($0.seconds), "\($0.name) (\($0.id))") }
        lines += [("extra_time_seconds", String(extraTimeSeconds), "\(extraTimeGrants) grants")]
        lines += limits.map { ("limit_seconds", String($0.seconds), "\($0.day) \($0.limit)") }
        return lines
    }

    /// The figures for a person: the insights first, then the rows of `by`. Names go in on one line each
    /// (`oneLine`); the caller makes the other control characters visible.
    func table() -> String {
        let duration = { (seconds: Int) in Self.duration(seconds) }
        var text = "\(Self.day(from)) – \(Self.lastDay(before: to)), \(days) day\(days == 1 ? "" : "s")\n"
        var average = "Daily average:   \(duration(dailyAverageSeconds))"
        if let change = dailyAverageChangePercent {
            average +=
                " (\(change >= 0 ? "+" : "")\(change) % against \(duration(previous.dailyAverageSeconds)) the \(previous.days) day\(previous.days == 1 ? "" : "s") before)"
        } else {
            average += " (no use the \(previous.days) day\(previous.days == 1 ? "" : "s") before)"
        }
        text += "Screen time:     \(duration(totalSeconds))\n" + average + "\n"
        // Every insight has its line, "none" when the range has nothing of it.
        let ranked = { (named: [ReportFigures.Named]) in
            named.isEmpty
                ? "none" : named.prefix(3).map { "\($0.name.oneLine) \(duration($0.seconds))" }.joined(separator: ", ")
        }
        text += "Most used apps:  " + ranked(topApps) + "\n"
        text += "Categories:      " + ranked(topCategories) + "\n"
        text += "Pickups:         \(pickups)\n"
        text += "First pickup:    " + (firstPickup.map(Self.time) ?? "none") + "\n"
        text +=
            "Longest session: "
            + (longestSession.map { "\(duration($0.seconds)) of \($0.name.oneLine), from \(Self.time($0.start))" }
                ?? "none")
            + "\n"
        text +=
            "Notifications:   \(notifications.total) (\(notifications.apps) from apps, \(Self.count(notifications.warnings, "warning")), "
            + "\(Self.count(notifications.shields, "shield")))\n"
        text +=
            "Time shielded:   \(duration(shieldedSeconds))"
            + (shielded.isEmpty
                ? ""
                : " (" + shielded.prefix(3).map { "\($0.name.oneLine) \(duration($0.seconds))" }.joined(separator: ", ")
                    + ")")
            + "\n"
        text += "Extra time:      \(duration(extraTimeSeconds)) in \(Self.count(extraTimeGrants, "grant"))\n"
        if !limits.isEmpty {
            let byLimit = Dictionary(grouping: limits, by: \.limit).sorted { $0.key < $1.key }
            text +=
                "Limits:          "
                + byLimit.map { name, days in
                    "\(name.oneLine) "
                        + days.map { "\(Self.day($0.day).suffix(5)) \(duration($0.seconds))" }.joined(separator: ", ")
                }.joined(separator: "; ") + "\n"
        }
        if by == "summary" { return text }
        text += "By \(by):\n"
        for row in rows {
            let label =
                row.start.map { "\(Self.time($0)) – \(Self.time(row.end ?? ""))" }
                ?? "\((row.name ?? "?").oneLine) [\((row.id ?? "?").oneLine)]"
            text += "  \(duration(row.seconds).padding(toLength: 10, withPad: " ", startingAt: 0))  \(label)\n"
        }
        return text
    }

    /// `1 warning`, `3 warnings`.
    static func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }

    /// `1h05m`, `12m30s`.
    static func duration(_ seconds: Int) -> String { NowTable.format(.seconds(seconds)) }

    /// The day of an ISO 8601 time (its first ten characters).
    static func day(_ iso: String) -> String { String(iso.prefix(10)) }

    /// The last day of a range that ends at `end` (ISO 8601), which is not in it: a range to the next midnight ends
    /// on the day before.
    static func lastDay(before end: String) -> String {
        guard let date = try? Date(end, strategy: .iso8601) else { return day(end) }
        return day(ReportBuilder.iso(date - 0.001))
    }

    /// `2026-11-25 07:42` from an ISO 8601 time.
    static func time(_ iso: String) -> String {
        iso.count >= 16 ? String(iso.prefix(10)) + " " + String(iso.dropFirst(11).prefix(5)) : iso
    }
}
