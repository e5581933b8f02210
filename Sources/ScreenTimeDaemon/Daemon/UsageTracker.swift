import Foundation
import LinuxActivity
import ScreenTimeModel
import UsageStore

/// Turns each tick's samples into usage intervals and pickups for the ledger: one interval per session and app while
/// the app stays in use in an active session (extended every tick), and a pickup when an app comes to the front
/// after the session was locked, idle or in the background. A session whose focus is known has one app in use; one
/// whose focus can't be known has all its running apps in use (the collector's fallback), each its own interval, as
/// the engine counts them.
struct UsageTracker {
    private struct Key: Hashable {
        var session: SessionID
        var application: ApplicationToken
    }

    private struct Open {
        var use: AppUse
        var start: Date
        var startMonotonic: Duration
    }

    private var open: [Key: Open] = [:]
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
            let inUse = sample.presence.counts ? sample.applicationsInUse : []
            var hadOpen = false
            for (key, current) in open where key.session == sample.session {
                hadOpen = true
                intervals.append(interval(sample.user, sample.session, current, monotonic: monotonic, wall: wall))
                if !inUse.contains(current.use) { open[key] = nil }
            }
            for use in inUse where open[Key(session: sample.session, application: use.application)] == nil {
                open[Key(session: sample.session, application: use.application)] = Open(
                    use: use, start: wall, startMonotonic: monotonic)
            }
            if !hadOpen, let first = inUse.first, previous != nil, previous != .active {
                pickups.append(Pickup(user: sample.user, session: sample.session, application: first.application, time: wall))
            }
        }
        // A handful of sessions: looked up in the samples rather than collected into a set each tick.
        for key in open.keys where !samples.contains(where: { $0.session == key.session }) {
            open[key] = nil
            lastPresence[key.session] = nil
        }
        return (intervals, pickups)
    }

    private func interval(_ user: UserID, _ session: SessionID, _ open: Open, monotonic: Duration, wall: Date) -> UsageInterval {
        UsageInterval(
            user: user, session: session, use: open.use, start: open.start, end: max(wall, open.start),
            duration: max(.zero, monotonic - open.startMonotonic))
    }
}
