import Foundation
import Testing

@testable import ScreenTimeCharts

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Whether `text` parses as XML, and the text of its elements named `name`.
func parseXML(_ text: String, collecting name: String) -> (wellFormed: Bool, texts: [String]) {
    final class Collector: NSObject, XMLParserDelegate {
        let name: String
        var texts: [String] = []
        var current: String?
        init(name: String) { self.name = name }
        func parser(
            _ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            if element == name { current = "" }
        }
        func parser(_ parser: XMLParser, foundCharacters string: String) { current? += string }
        func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
            if element == name, let current { texts.append(current) }
            current = nil
        }
    }
    let parser = XMLParser(data: Data(text.utf8))
    let collector = Collector(name: name)
    parser.delegate = collector
    return (parser.parse(), collector.texts)
}

@Suite struct StackedBarChartTests {
    let series = [ChartSeries(name: "Games", colour: 0), ChartSeries(name: "Social", colour: 1)]

    func chart(_ bars: [[Double]]) -> StackedBarChart {
        StackedBarChart(
            id: "hours", title: "Use per hour", summary: "summary", series: series,
            bars: bars.enumerated().map {
                StackedBarChart.Bar(label: "\($0.offset)", title: "hour \($0.offset)", values: $0.element)
            },
            tickStep: 900, format: { "\(Int($0 / 60)) min" })
    }

    @Test func barHeightsAreProportionalToTheirTotalsOnACommonBaseline() {
        let values: [[Double]] = [[600, 1200], [1800, 0], [0, 0], [300, 300]]
        let layout = chart(values).layout()
        let plot = layout.baseline - layout.top
        for (index, bar) in values.enumerated() {
            let parts = layout.segments.filter { $0.bar == index }
            let height = parts.reduce(0) { $0 + $1.height }
            #expect(abs(height - bar.reduce(0, +) / layout.scaleMaximum * plot) < 1e-9)
            if let lowest = parts.first { #expect(abs(lowest.y + lowest.height - layout.baseline) < 1e-9) }
        }
        // 1800 s is the largest bar: the scale ends at the next multiple of 900 s at or above it.
        #expect(layout.scaleMaximum == 1800)
        #expect(layout.ticks.map(\.value) == [0, 900, 1800])
    }

    @Test func partsStackInSeriesOrderBottomUpWithoutGapsAndEmptyPartsAreLeftOut() {
        let layout = chart([[600, 1200], [0, 900]]).layout()
        let first = layout.segments.filter { $0.bar == 0 }
        #expect(first.map(\.series) == [0, 1])
        #expect(first[0].y > first[1].y)
        #expect(abs(first[1].y + first[1].height - first[0].y) < 1e-9)
        #expect(layout.segments.filter { $0.bar == 1 }.map(\.series) == [1])
    }

    @Test func anEmptyChartHasAScaleAndNoBars() {
        let layout = chart([[0, 0], [0, 0]]).layout()
        #expect(layout.segments.isEmpty)
        #expect(layout.scaleMaximum == 900)
        #expect(parseXML(chart([[0, 0]]).svg(), collecting: "title").wellFormed)
    }
}

@Suite struct DonutChartTests {
    func donut(_ values: [Double]) -> DonutChart {
        DonutChart(
            id: "donut", title: "Categories", summary: "summary",
            slices: values.enumerated().map {
                DonutChart.Slice(series: ChartSeries(name: "c\($0.offset)", colour: $0.offset), value: $0.element)
            },
            format: { "\($0) s" })
    }

    @Test func arcsFollowEachOtherAndSumTo360Degrees() {
        let values: [Double] = [3600, 1800, 0, 600, 7]
        let arcs = donut(values).arcs()
        #expect(arcs.map(\.slice) == [0, 1, 3, 4])
        #expect(arcs.first?.startDegrees == 0)
        #expect(arcs.last?.endDegrees == 360)
        for (previous, next) in zip(arcs, arcs.dropFirst()) { #expect(previous.endDegrees == next.startDegrees) }
        let total = values.reduce(0, +)
        for arc in arcs {
            #expect(abs((arc.endDegrees - arc.startDegrees) - values[arc.slice] / total * 360) < 1e-9)
        }
        #expect(abs(arcs.reduce(0) { $0 + $1.endDegrees - $1.startDegrees } - 360) < 1e-9)
    }

    @Test func oneSliceIsAFullRingAndNoUseIsAnEmptyRing() {
        let full = donut([42]).svg()
        #expect(full.contains("<path"))
        #expect(parseXML(full, collecting: "title").wellFormed)
        #expect(donut([]).arcs().isEmpty)
        #expect(donut([0, 0]).svg().contains("class=\"empty\""))
    }
}

@Suite struct RankedBarsTests {
    @Test func barsAreAsLongAsTheirShareOfTheLargest() {
        let bars = RankedBars(
            id: "apps", title: "Most used", summary: "",
            items: [3600.0, 1800, 900, 0].enumerated().map {
                RankedBars.Item(name: "app\($0.offset)", series: ChartSeries(name: "c", colour: 0), value: $0.element)
            },
            format: { "\($0)" })
        let lengths = bars.barLengths()
        #expect(lengths[0] == bars.width - RankedBars.labelWidth - RankedBars.valueWidth)
        #expect(abs(lengths[1] - lengths[0] / 2) < 1e-9)
        #expect(abs(lengths[2] - lengths[0] / 4) < 1e-9)
        #expect(lengths[3] == 0)
    }
}

@Suite struct MarkupTests {
    static let hostile = "Evil <script>alert('x')</script> & \"Co\"\u{1B}[31m\u{07}\u{202E}"

    @Test func markupAndControlCharactersAreEscaped() {
        let escaped = Markup.escape(Self.hostile)
        #expect(!escaped.contains("<") && !escaped.contains(">") && !escaped.contains("\""))
        #expect(!escaped.unicodeScalars.contains { $0.value < 0x20 || $0 == "\u{202E}" })
        #expect(escaped.contains("&lt;script&gt;") && escaped.contains("&amp;") && escaped.contains("&#39;x&#39;"))
        #expect(escaped.contains("\\e[31m") && escaped.contains("\\x07"))
    }

    @Test func namesWithMarkupStayTextInEveryChart() {
        let series = ChartSeries(name: Self.hostile, colour: 2)
        let svgs = [
            StackedBarChart(
                id: "a", title: Self.hostile, summary: Self.hostile, series: [series],
                bars: [.init(label: Self.hostile, title: Self.hostile, values: [60])], tickStep: 60, format: { "\($0)" }
            ).svg(),
            DonutChart(
                id: "b", title: Self.hostile, summary: "", slices: [.init(series: series, value: 1)],
                format: { "\($0)" }
            ).svg(),
            RankedBars(
                id: "c", title: "t", summary: "", items: [.init(name: Self.hostile, series: series, value: 1)],
                format: { "\($0)" }
            ).svg(),
        ]
        let visible = Self.hostile.escapingControlCharactersForTest
        for svg in svgs {
            let parsed = parseXML(svg, collecting: "title")
            #expect(parsed.wellFormed, "\(svg)")
            #expect(!svg.contains("<script"))
            // The name reads back as the text it was (control characters made visible), never as markup.
            #expect(parsed.texts.contains { $0.contains(visible) || $0.contains("Evil <script>") })
        }
    }
}

extension String {
    var escapingControlCharactersForTest: String {
        Markup.escape(self).replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(of: "&quot;", with: "\"")
            .replacingOccurrences(of: "&#39;", with: "'")
    }
}
