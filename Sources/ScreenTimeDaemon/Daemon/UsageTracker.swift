import Foundation
import LinuxActivity
import ScreenTimeModel
import UsageStore

/// Turns each tick's samples into usage intervals and pickups for the ledger: one interval per session and app while
/// the app stays in front of an active session (extended every tick), and a pickup when an app comes to the front
/// after the session was locked, idle or in the background.
struct UsageTracker {
    private struct Open {
        var use: AppUse
        var start: Date
        var startMonotonic: Duration
    }

    private var open: [SessionID: Open] = [:]
    private var lastPresence: [SessionID: SessionPresence] = [:]

    /// What changed at this tick, for the recorder.
    mutating func observe(
        _ samples: [UsageSample], monotonic: Duration, wall: Date
    ) -> (intervals: [UsageInterval], pickups: [Pickup]) {
        var intervals: [UsageInterval] = []
        var pickups: [Pickup] = []
        for sample in samples {
            let previous = lastPresence[sample.session]
            if previous != sample.presence { lastPresence[sample.session] = sample.presence }
            let front = sample.presence.counts && sample.applicationsInUse.count == 1 ? sample.applicationsInUse[0] : nil
            if var current = open[sample.session] {
                intervals.append(interval(sample.user, sample.session, current, monotonic: monotonic, wall: wall))
                if current.use != front {
                    open[sample.session] = nil
                } else {
                    current.use = front!
                    open[sample.session] = current
                    continue
                }
            }
            guard let front else { continue }
            open[sample.session] = Open(use: front, start: wall, startMonotonic: monotonic)
            if previous != nil, previous != .active {
                pickups.append(Pickup(user: sample.user, session: sample.session, application: front.application, time: wall))
            }
        }
        // A handful of sessions: looked up in the samples rather than collected into a set each tick.
        for session in open.keys.filter({ session in !samples.contains { $0.session == session } }) {
            open[session] = nil
            lastPresence[session] = nil
        }
        return (intervals, pickups)
    }

    private func interval(_ user: UserID, _ session: SessionID, _ open: Open, monotonic: Duration, wall: Date) -> UsageInterval {
        UsageInterval(
            user: user, session: session, use: open.use, start: open.start, end: max(wall, open.start),
            duration: max(.zero, monotonic - open.startMonotonic))
    }
}
