/// One series of a chart (a category): its name and its colour, as the CSS class `series-N` of the page.
public struct ChartSeries: Hashable, Sendable {
    /// The name shown in the legend, titles and the text for screen readers.
    public var name: String
    /// The colour's number: the page styles `.series-N` (N from 0), in light and dark mode.
    public var colour: Int

    /// Creates a series.
    public init(name: String, colour: Int) {
        self.name = name
        self.colour = colour
    }
}
