import ScreenTimeModel

/// Per-app category overrides, from `$XDG_CONFIG_HOME/screentime/categories.conf`: one `APP-ID = CATEGORY` a line,
/// `#` comments, blank lines allowed.
public struct CategoryOverrides: Sendable, Hashable {
    public var categories: [AppID: ActivityCategory]

    public init(_ categories: [AppID: ActivityCategory] = [:]) {
        self.categories = categories
    }

    /// An error at a position of the file.
    public struct ParseError: Error, CustomStringConvertible, Sendable {
        public var file: String
        public var line: Int
        public var column: Int
        public var message: String
        public var description: String { "\(file):\(line):\(column): \(message)" }
    }

    /// Parses the file's text; `file` names it in errors.
    public init(parsing text: String, file: String) throws(ParseError) {
        var categories: [AppID: ActivityCategory] = [:]
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            if content.allSatisfy(\.isWhitespace) { continue }
            guard let equals = content.firstIndex(of: "=") else {
                throw ParseError(
                    file: file, line: number + 1, column: 1,
                    message: "expected `APP-ID = CATEGORY`, e.g. `org.example.Game = games`")
            }
            let app = content[..<equals].trimmingCharacters()
            let value = content[content.index(after: equals)...].trimmingCharacters()
            guard !app.isEmpty else {
                throw ParseError(file: file, line: number + 1, column: 1, message: "missing app id before `=`")
            }
            guard let category = ActivityCategory(rawValue: value) else {
                let column = content.distance(from: content.startIndex, to: equals) + 2
                throw ParseError(
                    file: file, line: number + 1, column: column,
                    message: "unknown category `\(value)`; valid: "
                        + ActivityCategory.allCases.map(\.rawValue).joined(separator: ", "))
            }
            categories[AppID(app)] = category
        }
        self.categories = categories
    }

    /// The overrides file of a user, or nil when absent. Throws on a malformed file.
    public static func load(home: String?, environment: [String: String]) throws(ParseError) -> CategoryOverrides {
        let configHome = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? home.map { $0 + "/.config" }
        guard let configHome else { return CategoryOverrides() }
        let path = configHome + "/screentime/categories.conf"
        guard let text = FileSystem.readText(path) else { return CategoryOverrides() }
        return try CategoryOverrides(parsing: text, file: path)
    }
}

extension StringProtocol {
    func trimmingCharacters() -> String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
