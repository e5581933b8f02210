import Foundation

/// What `org.screentime.Daemon1.Status` answers, as JSON: the daemon's limits and downtimes for each user it limits,
/// now.
public struct DaemonStatus: Codable, Hashable, Sendable {
    /// One limit or downtime of one user.
    public struct Row: Codable, Hashable, Sendable {
        /// `limit` or `downtime`.
        public var kind: String
        /// The name in the policy file.
        public var name: String
        /// The user (uid).
        public var user: UInt32
        /// Use counted in the current interval (limits).
        public var usedSeconds: Int?
        /// The daily limit (limits).
        public var limitSeconds: Int?
        /// What is left of it (limits).
        public var remainingSeconds: Int?
        /// When the limit resets, or when the downtime ends (in force) or next starts.
        public var nextReset: Date?
        /// Whether its shield is in force now.
        public var shielded: Bool

        /// A row with every field given.
        public init(
            kind: String, name: String, user: UInt32, usedSeconds: Int? = nil, limitSeconds: Int? = nil,
            remainingSeconds: Int? = nil, nextReset: Date? = nil, shielded: Bool
        ) {
            self.kind = kind
            self.name = name
            self.user = user
            self.usedSeconds = usedSeconds
            self.limitSeconds = limitSeconds
            self.remainingSeconds = remainingSeconds
            self.nextReset = nextReset
            self.shielded = shielded
        }
    }

    /// `individual` or `guardian`.
    public var mode: String
    /// The daemon's time when it answered.
    public var asOf: Date
    /// The policy file read.
    public var policyPath: String
    /// Why the policy file was refused, while an older policy (or none) is in force.
    public var policyError: String?
    /// The store's last failure, while the daemon keeps enforcing from memory.
    public var storeFault: String?
    /// Damaged ledgers moved aside (kept), oldest first.
    public var movedAside: [String]
    /// The limits and downtimes, users in increasing order.
    public var rows: [Row]

    /// A status at `asOf`.
    public init(
        mode: String, asOf: Date, policyPath: String, policyError: String? = nil, storeFault: String? = nil,
        movedAside: [String] = [], rows: [Row]
    ) {
        self.mode = mode
        self.asOf = asOf
        self.policyPath = policyPath
        self.policyError = policyError
        self.storeFault = storeFault
        self.movedAside = movedAside
        self.rows = rows
    }
}
