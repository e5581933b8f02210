import Foundation
import Glibc
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
        /// What is valid but most likely not what was meant (a limit longer than its window), in the order of the file.
        public var warnings: [PolicyError.Problem] = []
        /// The text read, when a file was read as UTF-8 text.
        public var text: String? = nil

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

    /// The largest policy file read: far more than any policy needs.
    static let maximumFileBytes = 1 << 20

    /// What the text of the file at `path` holds, read as `role`.
    private static func diagnoseContents(ofFileAt path: String, role: Role) -> Diagnosis {
        let bytes: [UInt8]
        switch readPolicyFile(at: path) {
        case .success(let read): bytes = read
        case .failure(let reason):
            let problem = PolicyError(file: path, line: 1, column: 1, message: reason.message)
            return Diagnosis(result: .failure(problem), applications: [])
        }
        if let (line, column) = firstInvalidUTF8(in: bytes) {
            let problem = PolicyError(
                file: path, line: line, column: column, message: "the file is not UTF-8 text; save it as UTF-8")
            return Diagnosis(result: .failure(problem), applications: [])
        }
        let text = String(decoding: bytes, as: UTF8.self)
        var diagnosis = diagnose(text, file: path, role: role)
        diagnosis.text = text
        return diagnosis
    }

    private struct ReadFailure: Error { var message: String }

    /// The bytes of the file at `path`: a regular file of at most `maximumFileBytes`, opened without waiting, so that
    /// a FIFO or a device put in its place can't hold the daemon.
    private static func readPolicyFile(at path: String) -> Result<[UInt8], ReadFailure> {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let reason = errno == ENOENT ? "no such file" : "cannot read the file (\(String(cString: strerror(errno))))"
            return .failure(ReadFailure(message: reason))
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            return .failure(ReadFailure(message: "not a regular file; a policy is a text file"))
        }
        guard status.st_size <= maximumFileBytes else {
            return .failure(
                ReadFailure(message: "the file is over 1 MiB (\(status.st_size) bytes); a policy is short text"))
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while bytes.count <= maximumFileBytes {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else {
                return .failure(ReadFailure(message: "cannot read the file (\(String(cString: strerror(errno))))"))
            }
            if count == 0 { return .success(bytes) }
            bytes += chunk[..<count]
        }
        return .failure(ReadFailure(message: "the file is over 1 MiB; a policy is short text"))
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
            return Diagnosis(result: .failure(error), applications: log.applications, warnings: log.warnings)
        }
        return Diagnosis(result: .success(policy), applications: log.applications, warnings: log.warnings)
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
