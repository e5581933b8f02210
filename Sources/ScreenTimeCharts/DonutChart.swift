import Foundation

/// A donut of shares (use per category), drawn as SVG arcs clockwise from the top, in the order given.
public struct DonutChart: Sendable {
    /// One share.
    public struct Slice: Hashable, Sendable {
        public var series: ChartSeries
        public var value: Double

        public init(series: ChartSeries, value: Double) {
            self.series = series
            self.value = value
        }
    }

    /// A slice's arc, in degrees clockwise from the top.
    public struct Arc: Hashable, Sendable {
        public var slice: Int
        public var startDegrees: Double
        public var endDegrees: Double
    }

    public var id: String
    public var title: String
    public var summary: String
    /// Slices with a value above 0 are drawn.
    public var slices: [Slice]
    public var format: @Sendable (Double) -> String
    public var size: Double = 220
    /// The ring's width as a share of the radius.
    public var thickness: Double = 0.38

    /// Creates a donut.
    public init(
        id: String, title: String, summary: String, slices: [Slice], format: @escaping @Sendable (Double) -> String
    ) {
        self.id = id
        self.title = title
        self.summary = summary
        self.slices = slices
        self.format = format
    }

    /// Each slice's arc: its share of 360°, one after the other, so the arcs cover the circle once.
    public func arcs() -> [Arc] {
        let total = slices.reduce(0) { $0 + max(0, $1.value) }
        guard total > 0 else { return [] }
        var start = 0.0
        var arcs: [Arc] = []
        for (index, slice) in slices.enumerated() where slice.value > 0 {
            let end = start + slice.value / total * 360
            arcs.append(Arc(slice: index, startDegrees: start, endDegrees: end))
            start = end
        }
        if let last = arcs.indices.last { arcs[last].endDegrees = 360 }
        return arcs
    }

    /// The donut as an `<svg>` element with a `<title>`, a `<desc>` and a `<title>` on each slice.
    public func svg() -> String {
        let radius = size / 2 - 4
        let inner = radius * (1 - thickness)
        let center = size / 2
        var svg = """
            <svg class="chart donut" viewBox="0 0 \(Markup.number(size)) \(Markup.number(size))" role="img" \
            aria-labelledby="\(id)-title \(id)-desc" xmlns="http://www.w3.org/2000/svg">\
            <title id="\(id)-title">\(Markup.escape(title))</title><desc id="\(id)-desc">\(Markup.escape(summary))</desc>
            """
        let total = slices.reduce(0) { $0 + max(0, $1.value) }
        if total == 0 {
            svg +=
                "<circle class=\"empty\" cx=\"\(Markup.number(center))\" cy=\"\(Markup.number(center))\" "
                + "r=\"\(Markup.number((radius + inner) / 2))\" fill=\"none\" stroke-width=\"\(Markup.number(radius - inner))\"/>"
        }
        for arc in arcs() {
            let slice = slices[arc.slice]
            let share = Int((slice.value / total * 100).rounded())
            svg +=
                "<path class=\"series-\(slice.series.colour)\" d=\"\(path(arc, center: center, outer: radius, inner: inner))\">"
                + "<title>\(Markup.escape("\(slice.series.name): \(format(slice.value)) (\(share) %)"))</title></path>"
        }
        return svg + "</svg>"
    }

    /// A ring sector: outer arc clockwise, inner arc back. A full circle is drawn as two halves (an SVG arc can't
    /// start and end at the same point).
    private func path(_ arc: Arc, center: Double, outer: Double, inner: Double) -> String {
        func point(_ degrees: Double, _ radius: Double) -> String {
            let radians = (degrees - 90) * .pi / 180
            return "\(Markup.number(center + radius * cos(radians))) \(Markup.number(center + radius * sin(radians)))"
        }
        let sweep = arc.endDegrees - arc.startDegrees
        if sweep >= 359.999 {
            let o = Markup.number(outer)
            let i = Markup.number(inner)
            return "M \(point(0, outer)) A \(o) \(o) 0 1 1 \(point(180, outer)) A \(o) \(o) 0 1 1 \(point(0, outer)) "
                + "M \(point(0, inner)) A \(i) \(i) 0 1 0 \(point(180, inner)) A \(i) \(i) 0 1 0 \(point(0, inner)) Z"
        }
        let large = sweep > 180 ? 1 : 0
        return "M \(point(arc.startDegrees, outer)) "
            + "A \(Markup.number(outer)) \(Markup.number(outer)) 0 \(large) 1 \(point(arc.endDegrees, outer)) "
            + "L \(point(arc.endDegrees, inner)) "
            + "A \(Markup.number(inner)) \(Markup.number(inner)) 0 \(large) 0 \(point(arc.startDegrees, inner)) Z"
    }
}
