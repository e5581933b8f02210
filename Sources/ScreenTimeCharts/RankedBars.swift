/// Horizontal bars of the most used apps: a row per item, its name, a bar as long as its share of the largest, and
/// its value.
public struct RankedBars: Sendable {
    /// One row.
    public struct Item: Hashable, Sendable {
        public var name: String
        public var series: ChartSeries
        public var value: Double

        public init(name: String, series: ChartSeries, value: Double) {
            self.name = name
            self.series = series
            self.value = value
        }
    }

    public var id: String
    public var title: String
    public var summary: String
    public var items: [Item]
    public var format: @Sendable (Double) -> String
    public var width: Double = 520
    static let rowHeight = 28.0
    static let labelWidth = 180.0
    static let valueWidth = 90.0

    /// Creates the rows.
    public init(
        id: String, title: String, summary: String, items: [Item], format: @escaping @Sendable (Double) -> String
    ) {
        self.id = id
        self.title = title
        self.summary = summary
        self.items = items
        self.format = format
    }

    /// Each row's bar length, proportional to its value (the largest fills the room between name and value).
    public func barLengths() -> [Double] {
        let largest = items.map(\.value).max() ?? 0
        let room = width - Self.labelWidth - Self.valueWidth
        return items.map { largest > 0 ? max(0, $0.value) / largest * room : 0 }
    }

    /// The rows as an `<svg>` element, with a `<title>`, a `<desc>` and a `<title>` on each bar.
    public func svg() -> String {
        let height = max(1, Double(items.count)) * Self.rowHeight
        var svg = """
            <svg class="chart ranked" viewBox="0 0 \(Markup.number(width)) \(Markup.number(height))" role="img" \
            aria-labelledby="\(id)-title \(id)-desc" xmlns="http://www.w3.org/2000/svg">\
            <title id="\(id)-title">\(Markup.escape(title))</title><desc id="\(id)-desc">\(Markup.escape(summary))</desc>
            """
        for (index, (item, length)) in zip(items, barLengths()).enumerated() {
            let y = Double(index) * Self.rowHeight
            let middle = Markup.number(y + Self.rowHeight / 2)
            // Long names are cut: the full name is in the bar's title and the page's table.
            let name = item.name.count > 24 ? String(item.name.prefix(23)) + "…" : item.name
            svg +=
                "<text class=\"label\" x=\"0\" y=\"\(middle)\" dominant-baseline=\"middle\">\(Markup.escape(name))</text>"
            svg +=
                "<rect class=\"series-\(item.series.colour)\" x=\"\(Markup.number(Self.labelWidth))\" "
                + "y=\"\(Markup.number(y + 6))\" width=\"\(Markup.number(length))\" "
                + "height=\"\(Markup.number(Self.rowHeight - 12))\" rx=\"3\">"
                + "<title>\(Markup.escape("\(item.name): \(format(item.value))"))</title></rect>"
            svg +=
                "<text class=\"value\" x=\"\(Markup.number(width))\" y=\"\(middle)\" text-anchor=\"end\" "
                + "dominant-baseline=\"middle\">\(Markup.escape(format(item.value)))</text>"
        }
        return svg + "</svg>"
    }
}
