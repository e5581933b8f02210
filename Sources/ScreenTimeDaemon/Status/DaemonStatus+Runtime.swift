import Foundation
import ScreenTimeBus
import ScreenTimeEngine
import ScreenTimeModel

extension DaemonStatus {
    /// The status of `runtime` now.
    init(runtime: DaemonRuntime, at now: Now, movedAside: [String]) {
        let settings = runtime.settings
        let engine = runtime.engine
        func date(_ instant: WallClockInstant) -> Date {
            Date(timeIntervalSince1970: TimeInterval(instant.nanosecondsSince1970) / 1e9)
        }
        var rows: [Row] = []
        for user in (settings.users ?? engine.knownUsers).sorted() {
            // A limit by weekday is one activity a day: today's is the one in its interval, and a day it doesn't
            // name has no row.
            var shown: Set<String> = []
            let limits = runtime.plan.limits.filter { $0.applies(to: user) }
            let todays = limits.filter { engine.currentInterval(of: $0.activity) != nil }
            let everyDay = limits.filter { $0.weekday == nil }
            for limit in todays + everyDay where shown.insert(limit.key).inserted {
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
            for downtime in runtime.plan.downtimes where downtime.applies(to: user) {
                // The day's interval in progress, or else the soonest to come.
                let current = downtime.activities.lazy.compactMap { engine.currentInterval(of: $0) }.first
                let next = downtime.activities.compactMap { engine.nextInterval(of: $0) }.min { $0.start < $1.start }
                rows.append(
                    Row(
                        kind: "downtime", name: downtime.name, user: user.rawValue,
                        nextReset: current.map { date($0.end) } ?? next.map { date($0.start) },
                        shielded: current != nil && !engine.effectiveShield(for: user).isEmpty))
            }
        }
        self.init(
            mode: settings.system ? "guardian" : "individual", asOf: now.date, policyPath: settings.policyPath,
            policyError: runtime.policyError.map { "\($0)" }, storeFault: runtime.storeFault, movedAside: movedAside,
            rows: rows)
    }
}
