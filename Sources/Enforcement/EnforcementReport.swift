import ScreenTimeModel

/// What one enforcer operation did: each action with its result, and whether the state file could be written.
public struct EnforcementReport: Sendable {
    /// One action and what became of it.
    public struct Entry: Hashable, Sendable {
        /// The action carried out.
        public var action: EnforcementAction
        /// What became of it.
        public var result: ActionResult
    }

    /// Every action carried out, in order.
    public var entries: [Entry] = []
    /// Set when the state file could not be written; what is held may then not be released after a crash.
    public var stateFileError: EnforcementError?
    /// Processes of frozen apps that were resumed too often and are being terminated instead, for a notification.
    public var escalated: [(app: AppID, process: ProcessIdentity)] = []

    /// Creates an empty report.
    public init() {}

    /// The actions that failed, each with its error, for the caller to log; they are retried on the next tick.
    public var failures: [(action: EnforcementAction, error: EnforcementError)] {
        entries.compactMap { entry in
            if case .failed(let error) = entry.result { (entry.action, error) } else { nil }
        }
    }

    /// The actions that took effect.
    public var applied: [EnforcementAction] {
        entries.compactMap { $0.result == .done ? $0.action : nil }
    }
}
