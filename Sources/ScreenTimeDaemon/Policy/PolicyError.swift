/// The mistakes in a policy file, each with where it is: `policy.toml:3:9: what is wrong`, one per line, in the
/// order of the file.
public struct PolicyError: Error, Hashable, Sendable, CustomStringConvertible {
    /// One mistake (or, from `screentime policy check`, one warning) at one position.
    public struct Problem: Hashable, Sendable, CustomStringConvertible {
        /// The file's name as given to the parser.
        public var file: String
        /// 1-based line.
        public var line: Int
        /// 1-based column, in Unicode scalars.
        public var column: Int
        /// What is wrong and, where it is obvious, how to fix it.
        public var message: String

        /// Creates a problem at a position.
        public init(file: String, line: Int, column: Int, message: String) {
            self.file = file
            self.line = line
            self.column = column
            self.message = message
        }

        /// `file:line:column: message`, the form editors and compilers use.
        public var description: String { "\(file):\(line):\(column): \(message)" }
    }

    /// Every mistake found, in the order of the file; never empty.
    public private(set) var problems: [Problem]

    /// An error of one problem.
    public init(file: String, line: Int, column: Int, message: String) {
        self.problems = [Problem(file: file, line: line, column: column, message: message)]
    }

    /// An error of several problems, sorted by position; nil when there are none.
    public init?(problems: [Problem]) {
        guard !problems.isEmpty else { return nil }
        self.problems = problems.sorted { ($0.line, $0.column) < ($1.line, $1.column) }
    }

    /// The file of the first problem.
    public var file: String { problems[0].file }
    /// The line of the first problem.
    public var line: Int { problems[0].line }
    /// The column of the first problem.
    public var column: Int { problems[0].column }
    /// The message of the first problem.
    public var message: String { problems[0].message }

    /// Each problem as `file:line:column: message`, one per line.
    public var description: String { problems.map(\.description).joined(separator: "\n") }
}

extension PolicyError.Problem {
    init(at position: SourcePosition, in file: String, _ message: String) {
        self.init(file: file, line: position.line, column: position.column, message: message)
    }
}
