/// A mistake in a policy file, with where it is: `policy.toml:3:9: what is wrong`.
public struct PolicyError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file's name as given to the parser.
    public var file: String
    /// 1-based line.
    public var line: Int
    /// 1-based column, in Unicode scalars.
    public var column: Int
    /// What is wrong and, where it is obvious, how to fix it.
    public var message: String
    /// The file's other mistakes, in the order they appear: a file is checked whole, and every mistake reported.
    public var others: [PolicyError] = []

    /// Creates an error at a position.
    public init(file: String, line: Int, column: Int, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    /// Every mistake of the file, this one first.
    public var all: [PolicyError] {
        var first = self
        first.others = []
        return [first] + others
    }

    /// `file:line:column: message` for each mistake, one a line: the form editors and compilers use.
    public var description: String {
        all.map { "\($0.file):\($0.line):\($0.column): \($0.message)" }.joined(separator: "\n")
    }

    /// The mistakes of `errors` as one error (the first, carrying the others); nil when there are none.
    static func combining(_ errors: [PolicyError]) -> PolicyError? {
        guard var first = errors.first else { return nil }
        first.others = Array(errors.dropFirst())
        return first
    }
}
