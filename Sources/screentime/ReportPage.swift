import Foundation
import ScreenTimeCharts
import ScreenTimeModel

/// The report as one self-contained HTML page: inline CSS and SVG, no script, nothing fetched. A bar chart of use
/// per hour (a day) or per day (longer), stacked by category; a donut of the categories; the most used apps as bars;
/// the insights; and the chart's data as a table, so that screen readers (and people without colour) read every
/// figure. Light and dark mode follow `prefers-color-scheme`.
struct ReportPage {
    var figures: ReportFigures
    /// One row per hour or per day, with `categories`.
    var chart: [ReportFigures.Row]
    /// The user named with `--user`, if any.
    var userName: String?

    /// Each category's colour, stable across reports: its place among Screen Time's categories.
    static func series(_ id: String) -> ChartSeries {
        let category = ActivityCategory(rawValue: id)
        return ChartSeries(
            name: category?.displayName ?? id,
            colour: category.flatMap { ActivityCategory.allCases.firstIndex(of: $0) } ?? ActivityCategory.allCases.count
        )
    }

    func html() -> String {
        let escape = Markup.escape
        let duration: @Sendable (Double) -> String = { seconds in ReportFigures.duration(Int(seconds)) }
        let hourly = figures.days == 1
        let categoryIDs = Dictionary(chart.flatMap { $0.categories ?? [:] }, uniquingKeysWith: +)
            .sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map(\.key)
        let series = categoryIDs.map(Self.series)
        let bars = chart.map { row in
            StackedBarChart.Bar(
                label: barLabel(row, hourly: hourly), title: barTitle(row, hourly: hourly),
                values: categoryIDs.map { Double(row.categories?[$0] ?? 0) })
        }
        let largest = Double(chart.map(\.seconds).max() ?? 0)
        let step = [300.0, 600, 900, 1800, 3600, 7200, 10_800, 21_600].first { largest / $0 <= 5 } ?? 21_600
        let range = "\(ReportFigures.day(figures.from)) – \(ReportFigures.day(figures.to))"
        let barChart = StackedBarChart(
            id: "use", title: hourly ? "Screen time per hour" : "Screen time per day",
            summary: "\(duration(Double(figures.totalSeconds))) in total from \(range), stacked by category: "
                + series.map(\.name).joined(separator: ", ") + ". The table below lists every figure.",
            series: series, bars: bars, tickStep: step, format: Self.compact)
        let donut = DonutChart(
            id: "categories", title: "Categories",
            summary: figures.topCategories.map { "\($0.name) \(duration(Double($0.seconds)))" }.joined(separator: ", "),
            slices: figures.topCategories.map {
                DonutChart.Slice(series: Self.series($0.id), value: Double($0.seconds))
            },
            format: duration)
        let apps = RankedBars(
            id: "apps", title: "Most used apps",
            summary: figures.topApps.map { "\($0.name) \(duration(Double($0.seconds)))" }.joined(separator: ", "),
            items: figures.topApps.map {
                RankedBars.Item(name: $0.name, series: Self.series($0.category ?? "other"), value: Double($0.seconds))
            },
            format: duration)
        let who = userName.map { " of \(escape($0))" } ?? ""
        var page = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="color-scheme" content="light dark">
            <title>Screen Time\(who), \(escape(range))</title>
            <style>\(Self.style)</style>
            </head>
            <body>
            <main>
            <h1>Screen Time\(who)</h1>
            <p class="range">\(escape(range)), \(figures.days) day\(figures.days == 1 ? "" : "s")</p>
            <section aria-label="Insights"><dl class="insights">
            \(insights().map { "<div><dt>\(escape($0.0))</dt><dd>\(escape($0.1))</dd></div>" }.joined(separator: "\n"))
            </dl></section>
            <section aria-labelledby="use-heading"><h2 id="use-heading">\(hourly ? "Per hour" : "Per day")</h2>
            <figure>\(barChart.svg())
            <figcaption>\(legend(series))</figcaption></figure></section>
            <div class="pair">
            <section aria-labelledby="categories-heading"><h2 id="categories-heading">Categories</h2>
            <figure>\(donut.svg())<figcaption>\(legend(figures.topCategories.map { Self.series($0.id) }))</figcaption></figure>
            </section>
            <section aria-labelledby="apps-heading"><h2 id="apps-heading">Most used apps</h2>
            <figure>\(apps.svg())</figure></section>
            </div>
            <section aria-labelledby="data-heading"><h2 id="data-heading">The figures</h2>
            <div class=\"scroll\"><table><caption>Screen time \(hourly ? "per hour" : "per day") and per category, \(escape(range))</caption>
            <thead><tr><th scope="col">\(hourly ? "Hour" : "Day")</th><th scope="col">Total</th>
            """
        page += series.map { "<th scope=\"col\">\(escape($0.name))</th>" }.joined()
        page +=
            "<th scope=\"col\">Pickups</th><th scope=\"col\">Notifications</th><th scope=\"col\">Shielded</th></tr></thead><tbody>\n"
        for (row, bar) in zip(chart, bars) {
            page += "<tr><th scope=\"row\">\(escape(bar.title))</th><td>\(duration(Double(row.seconds)))</td>"
            page += categoryIDs.map { "<td>\(duration(Double(row.categories?[$0] ?? 0)))</td>" }.joined()
            page +=
                "<td>\(row.pickups ?? 0)</td><td>\(row.notifications ?? 0)</td><td>\(duration(Double(row.shieldedSeconds ?? 0)))</td></tr>\n"
        }
        page += "</tbody></table></div>\n"
        page +=
            "<div class=\"scroll\"><table><caption>Apps, \(escape(range))</caption><thead><tr><th scope=\"col\">App</th><th scope=\"col\">Id</th>"
            + "<th scope=\"col\">Category</th><th scope=\"col\">Time</th></tr></thead><tbody>\n"
        for app in figures.topApps {
            page +=
                "<tr><th scope=\"row\">\(escape(app.name))</th><td>\(escape(app.id))</td>"
                + "<td>\(escape(Self.series(app.category ?? "other").name))</td><td>\(duration(Double(app.seconds)))</td></tr>\n"
        }
        page += "</tbody></table></div>\n"
        if !figures.limits.isEmpty {
            page +=
                "<div class=\"scroll\"><table><caption>Limit of each day</caption><thead><tr><th scope=\"col\">Day</th><th scope=\"col\">Limit</th>"
                + "<th scope=\"col\">Allowed</th></tr></thead><tbody>\n"
            for limit in figures.limits {
                page +=
                    "<tr><th scope=\"row\">\(escape(limit.day))</th><td>\(escape(limit.limit))</td>"
                    + "<td>\(duration(Double(limit.seconds)))</td></tr>\n"
            }
            page += "</tbody></table></div>\n"
        }
        return page + "</section>\n</main>\n</body>\n</html>\n"
    }

    /// The insights, as label and text.
    private func insights() -> [(String, String)] {
        let duration = ReportFigures.duration
        var average = duration(figures.dailyAverageSeconds)
        if let change = figures.dailyAverageChangePercent {
            average +=
                " (\(change >= 0 ? "+" : "")\(change) % against the \(figures.previous.days) day\(figures.previous.days == 1 ? "" : "s") before)"
        }
        var items: [(String, String)] = [("Screen time", duration(figures.totalSeconds)), ("Daily average", average)]
        if let app = figures.topApps.first { items.append(("Most used", "\(app.name), \(duration(app.seconds))")) }
        if let category = figures.topCategories.first {
            items.append(("Top category", "\(category.name), \(duration(category.seconds))"))
        }
        items.append(("Pickups", "\(figures.pickups)"))
        if let first = figures.firstPickup { items.append(("First pickup", ReportFigures.time(first))) }
        if let longest = figures.longestSession {
            items.append(("Longest session", "\(duration(longest.seconds)) of \(longest.name)"))
        }
        items.append(("Notifications", "\(figures.notifications.total)"))
        items.append(("Time shielded", duration(figures.shieldedSeconds)))
        items.append(("Extra time", "\(duration(figures.extraTimeSeconds)) (\(figures.extraTimeGrants) granted)"))
        return items
    }

    private func legend(_ series: [ChartSeries]) -> String {
        "<ul class=\"legend\">"
            + series.map {
                "<li><svg width=\"12\" height=\"12\" aria-hidden=\"true\"><rect class=\"series-\($0.colour)\" width=\"12\" height=\"12\" rx=\"2\"/></svg>"
                    + "\(Markup.escape($0.name))</li>"
            }.joined() + "</ul>"
    }

    /// Under the axis: every third hour (`06`), each day of a short range (`Mon 23`), the first of each month of a
    /// long one (`Nov`).
    private func barLabel(_ row: ReportFigures.Row, hourly: Bool) -> String {
        guard let start = row.start, let date = ISO8601DateFormatter().date(from: start) else { return "" }
        let parts = Calendar.current.dateComponents([.hour, .day], from: date)
        if hourly { return (parts.hour ?? 0) % 3 == 0 ? String(start.dropFirst(11).prefix(2)) : "" }
        if chart.count <= 14 { return Self.formatted(date, "EEE d") }
        return parts.day == 1 ? Self.formatted(date, "MMM") : ""
    }

    private func barTitle(_ row: ReportFigures.Row, hourly: Bool) -> String {
        guard let start = row.start else { return "" }
        return hourly
            ? "\(ReportFigures.time(start)) – \(String((row.end ?? "").dropFirst(11).prefix(5)))"
            : ReportFigures.day(start)
    }

    /// A duration as the chart's scale writes it: `2 h`, `1 h 30`, `45 min`.
    @Sendable static func compact(_ seconds: Double) -> String {
        let minutes = Int(seconds) / 60
        if minutes < 60 { return "\(minutes) min" }
        return minutes % 60 == 0 ? "\(minutes / 60) h" : "\(minutes / 60) h \(minutes % 60)"
    }

    private static func formatted(_ date: Date, _ format: String) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = format
        return formatter.string(from: date)
    }

    /// Colours of the 15 series (Screen Time's categories, then unknown) in light and dark mode.
    static let style: String = {
        let light = [
            "#e8553e", "#2f7fd8", "#8e5bd8", "#d8a21f", "#2bab74", "#3b9fa8", "#b0753a", "#d84f91", "#6d7f8f",
            "#c2462e", "#4a9a3a", "#1f5fb3", "#5b6bd8", "#8a8f98", "#b5b9c0",
        ]
        let dark = [
            "#ff7a63", "#5fa8ff", "#b58cff", "#ffc94d", "#4fd39a", "#5fc9d3", "#d9a06a", "#ff7ab8", "#9fb1c2",
            "#ef7456", "#78c766", "#5a93e6", "#8d9bff", "#b4b9c2", "#7c8088",
        ]
        var css = """
            :root{color-scheme:light dark;--bg:#fbfbfd;--fg:#1d1d1f;--muted:#6e6e73;--card:#fff;--line:#d2d2d7}
            @media (prefers-color-scheme:dark){:root{--bg:#141416;--fg:#f5f5f7;--muted:#a1a1a6;--card:#1f1f22;--line:#3a3a3e}}
            body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,-apple-system,"Segoe UI",Cantarell,sans-serif}
            main{max-width:980px;margin:0 auto;padding:24px}
            h1{margin:0 0 4px;font-size:28px}h2{font-size:18px;margin:28px 0 8px}.range{color:var(--muted);margin:0}
            .insights{display:grid;grid-template-columns:repeat(auto-fill,minmax(200px,1fr));gap:10px;margin:20px 0}
            .insights div{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:10px 12px}
            dt{color:var(--muted);font-size:13px}dd{margin:2px 0 0;font-size:17px;font-weight:600;overflow-wrap:anywhere}
            figure{margin:0;background:var(--card);border:1px solid var(--line);border-radius:10px;padding:12px}
            .pair{display:grid;grid-template-columns:minmax(220px,1fr) 2fr;gap:16px}
            @media (max-width:700px){.pair{grid-template-columns:1fr}}
            svg.chart{width:100%;height:auto;display:block}svg.donut{max-width:240px;margin:0 auto}
            svg text{fill:var(--muted);font-size:11px}svg .label{fill:var(--fg);font-size:13px}svg .value{font-size:12px}
            svg .grid{stroke:var(--line);stroke-width:1}svg .empty{stroke:var(--line)}
            .legend{list-style:none;padding:0;margin:8px 0 0;display:flex;flex-wrap:wrap;gap:6px 14px;font-size:13px}
            .legend li{display:flex;align-items:center;gap:6px}
            .scroll{overflow-x:auto}
            table{border-collapse:collapse;width:100%;margin:12px 0;font-size:13px;background:var(--card)}
            caption{text-align:left;font-weight:600;padding:6px 0}
            th,td{border-bottom:1px solid var(--line);padding:4px 8px;text-align:right;white-space:nowrap}
            th[scope=row],thead th:first-child{text-align:left}
            """
        for (index, colour) in light.enumerated() { css += ".series-\(index){fill:\(colour)}" }
        css += "@media (prefers-color-scheme:dark){"
        for (index, colour) in dark.enumerated() { css += ".series-\(index){fill:\(colour)}" }
        return css + "}"
    }()
}
