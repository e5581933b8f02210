import LinuxActivity
import ScreenTimeModel

/// The state of an interactive `screentime pick`: a search over categories and apps, and what is chosen. Pure: lines
/// in, lines out, so the terminal loop only reads and prints.
struct PickSession {
    /// One row that can be chosen.
    enum Item: Hashable {
        case category(ActivityCategory)
        case app(AppLabel)

        var title: String {
            switch self {
            case .category(let category): "\(category.displayName) (category: all its apps)"
            case .app(let app): "\(app.name.oneLine) · \(app.category.displayName) · \(app.id.rawValue.oneLine)"
            }
        }

        func matches(_ words: [Substring]) -> Bool {
            let text: String
            switch self {
            case .category(let category): text = "\(category.displayName) \(category.rawValue) category"
            case .app(let app):
                text = "\(app.name) \(app.id.rawValue) \(app.category.displayName) \(app.category.rawValue)"
            }
            let lowered = text.lowercased()
            return words.allSatisfy { lowered.contains($0.lowercased()) }
        }
    }

    /// What a line of input asks for.
    enum Outcome: Equatable {
        /// Show the list again (with a note, such as what was wrong with the line).
        case show(note: String?)
        /// Print the choice.
        case done
        /// Leave without choosing.
        case cancel
    }

    let items: [Item]
    private(set) var search: [Substring] = []
    private(set) var chosen: Set<Item> = []

    init(apps: [AppLabel]) {
        items = ActivityCategory.allCases.map(Item.category) + apps.map(Item.app)
    }

    /// The rows the current search shows, numbered from 1.
    var visible: [Item] { search.isEmpty ? items : items.filter { $0.matches(search) } }

    /// The screen: the help line, the rows with their numbers and marks, what is chosen.
    func render() -> [String] {
        var lines = [
            "Type words to search, numbers (1 3 5-7) to choose or unchoose, an empty line to see everything, "
                + "\"done\" to finish, \"quit\" to leave."
        ]
        if !search.isEmpty { lines.append("search: \(search.joined(separator: " "))") }
        for (index, item) in visible.enumerated() {
            lines.append("\(chosen.contains(item) ? "[x]" : "[ ]") \(index + 1). \(item.title)")
        }
        if visible.isEmpty { lines.append("nothing matches; an empty line shows everything") }
        lines.append("chosen: \(chosen.count)")
        return lines
    }

    /// Handles one line the person typed.
    mutating func handle(_ line: String) -> Outcome {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" })
        switch words.map({ $0.lowercased() }) {
        case []:
            search = []
            return .show(note: nil)
        case ["done"], ["."]: return .done
        case ["quit"], ["q"]: return .cancel
        default: break
        }
        let rows = visible
        let numbers = words.map { word -> ClosedRange<Int>? in
            let bounds = word.split(separator: "-", maxSplits: 1).map { Int($0) }
            guard let low = bounds.first ?? nil, let high = bounds.last ?? nil, low <= high else { return nil }
            return low...high
        }
        guard numbers.allSatisfy({ $0 != nil }) else {
            search = words
            return .show(note: nil)
        }
        for range in numbers.compactMap({ $0 }) {
            guard range.lowerBound >= 1, range.upperBound <= rows.count else {
                return .show(note: "no row \(range.upperBound): the list has \(rows.count)")
            }
            for index in range {
                let item = rows[index - 1]
                if chosen.contains(item) { chosen.remove(item) } else { chosen.insert(item) }
            }
        }
        return .show(note: nil)
    }
}
