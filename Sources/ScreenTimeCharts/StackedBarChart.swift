/// A bar chart of use per hour or per day, each bar stacked by series (categories), drawn as SVG.
///
/// Bars stand on a common baseline; a bar's height is proportional to its total, each part's to its value, the
/// series stacked bottom up in the order given. The scale's top is the largest total rounded up to a whole number of
/// `tickStep`, with a grid line and a label at each step.
public struct StackedBarChart: Sendable {
    /// One bar: its label under the axis (may be empty) and its full name for titles, and one value per series.
    public struct Bar: Hashable, Sendable {
        public var label: String
        public var title: String
        /// One value per series, in the series' order; missing values count as 0.
        public var values: [Double]

        public init(label: String, title: String, values: [Double]) {
            self.label = label
            self.title = title
            self.values = values
        }

        /// The bar's height in values.
        public var total: Double { values.reduce(0) { $0 + max(0, $1) } }
    }

    /// A part of a bar, in SVG user units (y grows downwards).
    public struct Segment: Hashable, Sendable {
        public var bar: Int
        public var series: Int
        public var x: Double
        public var y: Double
        public var width: Double
        public var height: Double
    }

    /// Where everything goes.
    public struct Layout: Hashable, Sendable {
        /// Non-empty parts, bar by bar, each bar's bottom up.
        public var segments: [Segment]
        /// The value at the top of the plot.
        public var scaleMaximum: Double
        /// Grid lines: the value and its y.
        public var ticks: [(value: Double, y: Double)]
        /// The plot's baseline and top.
        public var baseline: Double
        public var top: Double

        public static func == (lhs: Layout, rhs: Layout) -> Bool {
            lhs.segments == rhs.segments && lhs.scaleMaximum == rhs.scaleMaximum && lhs.baseline == rhs.baseline
                && lhs.top == rhs.top && lhs.ticks.map(\.value) == rhs.ticks.map(\.value)
                && lhs.ticks.map(\.y) == rhs.ticks.map(\.y)
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(segments)
            hasher.combine(scaleMaximum)
        }
    }

    /// The chart's title (the SVG's `<title>`), and its summary for screen readers (its `<desc>`).
    public var title: String
    public var summary: String
    public var series: [ChartSeries]
    public var bars: [Bar]
    /// The scale's step, in values (e.g. 900 for quarter hours when values are seconds).
    public var tickStep: Double
    /// How a value is written in titles and on the scale.
    public var format: @Sendable (Double) -> String
    /// A prefix for the ids of this chart's elements, unique in the page.
    public var id: String
    public var width: Double = 720
    public var height: Double = 260
    static let left = 56.0
    static let bottom = 28.0
    static let topMargin = 10.0

    /// Creates a chart.
    public init(
        id: String, title: String, summary: String, series: [ChartSeries], bars: [Bar], tickStep: Double,
        format: @escaping @Sendable (Double) -> String
    ) {
        self.id = id
        self.title = title
        self.summary = summary
        self.series = series
        self.bars = bars
        self.tickStep = tickStep > 0 ? tickStep : 1
        self.format = format
    }

    /// The positions of the bars' parts and of the scale.
    public func layout() -> Layout {
        let baseline = height - Self.bottom
        let plotHeight = baseline - Self.topMargin
        let largest = bars.map(\.total).max() ?? 0
        let steps = max(1, (largest / tickStep).rounded(.up))
        let maximum = steps * tickStep
        let slot = bars.isEmpty ? 0 : (width - Self.left) / Double(bars.count)
        let barWidth = slot * 0.72
        var segments: [Segment] = []
        for (index, bar) in bars.enumerated() {
            var y = baseline
            let x = Self.left + Double(index) * slot + (slot - barWidth) / 2
            for (series, value) in bar.values.enumerated() where series < self.series.count && value > 0 {
                let part = value / maximum * plotHeight
                y -= part
                segments.append(Segment(bar: index, series: series, x: x, y: y, width: barWidth, height: part))
            }
        }
        let ticks = (0...Int(steps)).map { step in
            (value: Double(step) * tickStep, y: baseline - Double(step) / steps * plotHeight)
        }
        return Layout(segments: segments, scaleMaximum: maximum, ticks: ticks, baseline: baseline, top: Self.topMargin)
    }

    /// The chart as an `<svg>` element, with a `<title>` and `<desc>`, a `<title>` on each part (series, bar, value),
    /// and the scale. Colours come from the page's `.series-N` classes.
    public func svg() -> String {
        let layout = layout()
        var svg = """
            <svg class="chart bars" viewBox="0 0 \(Markup.number(width)) \(Markup.number(height))" role="img" \
            aria-labelledby="\(id)-title \(id)-desc" xmlns="http://www.w3.org/2000/svg">\
            <title id="\(id)-title">\(Markup.escape(title))</title><desc id="\(id)-desc">\(Markup.escape(summary))</desc>
            """
        for tick in layout.ticks {
            let y = Markup.number(tick.y)
            svg +=
                "<line class=\"grid\" x1=\"\(Markup.number(Self.left))\" x2=\"\(Markup.number(width))\" y1=\"\(y)\" y2=\"\(y)\"/>"
            svg +=
                "<text class=\"scale\" x=\"\(Markup.number(Self.left - 6))\" y=\"\(y)\" text-anchor=\"end\" "
                + "dominant-baseline=\"middle\">\(Markup.escape(format(tick.value)))</text>"
        }
        for segment in layout.segments {
            let bar = bars[segment.bar]
            let series = series[segment.series]
            svg +=
                "<rect class=\"series-\(series.colour)\" x=\"\(Markup.number(segment.x))\" y=\"\(Markup.number(segment.y))\" "
                + "width=\"\(Markup.number(segment.width))\" height=\"\(Markup.number(segment.height))\">"
                + "<title>\(Markup.escape("\(bar.title): \(series.name) \(format(bar.values[segment.series]))"))</title></rect>"
        }
        let slot = bars.isEmpty ? 0 : (width - Self.left) / Double(bars.count)
        for (index, bar) in bars.enumerated() where !bar.label.isEmpty {
            let x = Self.left + (Double(index) + 0.5) * slot
            svg +=
                "<text class=\"axis\" x=\"\(Markup.number(x))\" y=\"\(Markup.number(height - 8))\" "
                + "text-anchor=\"middle\">\(Markup.escape(bar.label))</text>"
        }
        return svg + "</svg>"
    }
}
