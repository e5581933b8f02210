import Foundation
import ScreenTimeEngine
import ScreenTimeModel
import UsageStore

/// What `screentime status` shows, as the running daemon knows it: each limit and downtime per user, and whether the
/// policy, the store and the shields are as they should be. Travels as JSON (`org.screentime.Daemon1.Status`).
public struct DaemonStatus: Codable, Sendable, Equatable {
    /// One limit or downtime of one user.
    public struct Row: Codable, Sendable, Equatable {
        /// `limit` or `downtime`.
        public var kind: String
        public var name: String
        public var user: UInt32
        public var usedSeconds: Int?
        public var limitSeconds: Int?
        public var remainingSeconds: Int?
        /// When the limit resets, or the downtime ends (in force) or starts next.
        public var nextReset: Date?
        public var shielded: Bool
    }

    /// `individual` or `guardian`.
    public var mode: String
    /// When the daemon made this status.
    public var asOf: Date
    public var policyPath: String
    /// Why the policy file was refused, while an older policy (or none) is in force.
    public var policyError: String?
    /// The store's last failure, while the daemon enforces from memory.
    public var storeFault: String?
    /// Damaged ledgers moved aside, oldest first.
    public var movedAside: [String]
    public var rows: [Row]

    /// The status of `runtime` now.
    public init(runtime: DaemonRuntime, at now: Now, movedAside: [String]) {
        let settings = runtime.settings
        let engine = runtime.engine
        mode = settings.system ? "guardian" : "individual"
        asOf = now.date
        policyPath = settings.policyPath
        policyError = runtime.policyError.map { "\($0)" }
        storeFault = runtime.storeFault
        self.movedAside = movedAside
        func date(_ instant: WallClockInstant) -> Date {
            Date(timeIntervalSince1970: TimeInterval(instant.nanosecondsSince1970) / 1e9)
        }
        var rows: [Row] = []
        for user in (settings.users ?? engine.knownUsers).sorted() {
            // A limit by weekday is one activity a day: today's is the one in its interval.
            var shown: Set<String> = []
            let todays = runtime.plan.limits.filter { engine.currentInterval(of: $0.activity) != nil }
            for limit in todays + runtime.plan.limits where shown.insert(limit.name).inserted {
                let usage = engine.usage(of: PolicyPlan.limitEvent, in: limit.activity, for: user)
                rows.append(
                    Row(
                        kind: "limit", name: limit.name, user: user.rawValue,
                        usedSeconds: usage.map { Int($0.used.components.seconds) },
                        limitSeconds: Int(limit.daily.components.seconds),
                        remainingSeconds: usage.map { Int($0.remaining.components.seconds) },
                        nextReset: engine.currentInterval(of: limit.activity).map { date($0.end) },
                        shielded: engine.settings(of: limit.store, for: user).map { !$0.isEmpty } ?? false))
            }
            for downtime in runtime.policy.downtimes {
                let activity = DeviceActivityName("downtime.\(downtime.name)")
                let current = engine.currentInterval(of: activity)
                rows.append(
                    Row(
                        kind: "downtime", name: downtime.name, user: user.rawValue,
                        nextReset: (current ?? engine.nextInterval(of: activity)).map { date(current == nil ? $0.start : $0.end) },
                        shielded: current != nil && !engine.effectiveShield(for: user).isEmpty))
            }
        }
        self.rows = rows
    }
}
