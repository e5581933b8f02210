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

    /// Creates an error at a position.
    public init(file: String, line: Int, column: Int, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    /// `file:line:column: message`, the form editors and compilers use.
    public var description: String { "\(file):\(line):\(column): \(message)" }
}
