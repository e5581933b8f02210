import Foundation
import ScreenTimeModel

extension Policy {
    /// Where a policy names an app (in `always_allowed`, a limit's `apps` or a downtime's `allow`).
    public struct ApplicationMention: Hashable, Sendable {
        /// The app, as the policy will count it (without `.desktop`).
        public var id: AppID
        /// The policy file's name.
        public var file: String
        /// 1-based line of the app's string.
        public var line: Int
        /// 1-based column of the app's string.
        public var column: Int

        /// Creates a mention.
        public init(id: AppID, file: String, line: Int, column: Int) {
            self.id = id
            self.file = file
            self.line = line
            self.column = column
        }
    }

    /// All that reading a policy found: the policy or every mistake, and where the text names apps.
    public struct Diagnosis: Sendable {
        /// The policy, or the error listing every mistake.
        public var result: Result<Policy, PolicyError>
        /// Every app named, in the order of the file (also when the policy has mistakes).
        public var applications: [ApplicationMention]

        /// The policy, or the error listing every mistake.
        public func get() throws(PolicyError) -> Policy { try result.get() }
    }

    /// Reads the policy file at `path` and reports everything wrong with it. A guardian's file (`role` not
    /// `.individual`) is also refused, however valid, unless root alone can write it: `guardianFileProblem`'s reason
    /// comes first, at line 1.
    public static func diagnose(fileAt path: String, role: Role = .individual) -> Diagnosis {
        var diagnosis = diagnoseContents(ofFileAt: path, role: role)
        guard role != .individual, let problem = guardianFileProblem(at: path) else { return diagnosis }
        let refused = PolicyError(file: path, line: 1, column: 1, message: problem)
        var problems = refused.problems
        if case .failure(let error) = diagnosis.result { problems += error.problems }
        diagnosis.result = .failure(PolicyError(problems: problems) ?? refused)
        return diagnosis
    }

    /// What the text of the file at `path` holds, read as `role`.
    private static func diagnoseContents(ofFileAt path: String, role: Role) -> Diagnosis {
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot read the file" : "no such file"
            let problem = PolicyError(file: path, line: 1, column: 1, message: reason)
            return Diagnosis(result: .failure(problem), applications: [])
        }
        let bytes = [UInt8](data)
        if let (line, column) = firstInvalidUTF8(in: bytes) {
            let problem = PolicyError(
                file: path, line: line, column: column, message: "the file is not UTF-8 text; save it as UTF-8")
            return Diagnosis(result: .failure(problem), applications: [])
        }
        return diagnose(String(decoding: bytes, as: UTF8.self), file: path, role: role)
    }

    /// The line and column (in scalars) of the first byte sequence that is not UTF-8, if any.
    private static func firstInvalidUTF8(in bytes: [UInt8]) -> (line: Int, column: Int)? {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var (line, column) = (1, 1)
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                if scalar == "\n" { (line, column) = (line + 1, 1) } else { column += 1 }
            case .emptyInput: return nil
            case .error: return (line, column)
            }
        }
    }

    /// Parses a policy from TOML text and reports everything wrong with it: every syntax error (one per line), and
    /// every mistake in the values. `file` names the text in the problems.
    public static func diagnose(_ text: String, file: String = "policy.toml", role: Role = .individual) -> Diagnosis {
        // A byte order mark is not part of the text.
        let (document, syntaxErrors) = TOMLParser.parse(text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text)
        let log = PolicyProblemLog(file: file)
        let policy = PolicyDecoder(document: document, log: log, role: role).decode()
        var problems = syntaxErrors.map { PolicyError.Problem(at: $0.position, in: file, $0.message) } + log.problems
        // A key reported missing may be on a line whose syntax error was just reported.
        if syntaxErrors.isEmpty { problems += log.missingKeys }
        if let error = PolicyError(problems: problems) {
            return Diagnosis(result: .failure(error), applications: log.applications)
        }
        return Diagnosis(result: .success(policy), applications: log.applications)
    }

    /// A warning for each app named that no desktop entry and no executable on the search path provides: most
    /// likely a misspelt name, which the policy would silently never count.
    ///
    /// - Parameters:
    ///   - isKnown: whether an id names an app of this system (the caller looks in its desktop entries).
    ///   - searchPath: the directories of `PATH`, for apps named by executable.
    public static func unknownApplicationWarnings(
        _ applications: [ApplicationMention], isKnown: (AppID) -> Bool, searchPath: [String]
    ) -> [PolicyError.Problem] {
        var checked: [AppID: Bool] = [:]
        let inFileOrder = applications.sorted { ($0.line, $0.column) < ($1.line, $1.column) }
        return inFileOrder.compactMap { mention in
            let known =
                checked[mention.id]
                ?? (isKnown(mention.id)
                    || searchPath.contains { access($0 + "/" + mention.id.rawValue, X_OK) == 0 })
            checked[mention.id] = known
            guard !known else { return nil }
            return PolicyError.Problem(
                file: mention.file, line: mention.line, column: mention.column,
                message: "warning: no desktop entry and no executable on PATH is named \"\(mention.id.rawValue)\"; "
                    + "check the spelling (`screentime apps` lists the apps seen)")
        }
    }
}
