import Foundation
import LinuxActivity
import ScreenTimeModel
import UsageStore

/// Turns each tick's samples into usage intervals and pickups for the ledger: one interval per session and app while
/// the app is in use in an active session (extended every tick), and a pickup when use starts again after the
/// session was locked, idle or in the background.
///
/// An app is in use when it is in front; in a session whose focus is unknown, every running app of the session is
/// (the collector's conservative fallback, which limits count too), so that reports show what limits counted.
/// Reports take the union of intervals, so apps running side by side never add up to more than the wall clock.
struct UsageTracker {
    private struct Open {
        var start: Date
        var startMonotonic: Duration
    }

    private var open: [SessionID: [AppUse: Open]] = [:]
    private var lastPresence: [SessionID: SessionPresence] = [:]
    /// The last tick's clocks.
    private var lastTick: (monotonic: Duration, wall: Date)?
    /// A tick whose wall clock moved by more than this beside the monotonic one follows a suspend (the monotonic clock
    /// stops, the wall clock doesn't) or a change of the wall clock.
    static let clockJump: Duration = .seconds(2)

    /// What changed at this tick, for the recorder.
    mutating func observe(
        _ samples: [UsageSample], monotonic: Duration, wall: Date
    ) -> (intervals: [UsageInterval], pickups: [Pickup]) {
        var intervals: [UsageInterval] = []
        var pickups: [Pickup] = []
        // Across a suspend or a change of the wall clock, intervals end at the last tick (where the last one wrote
        // them) and start again now: extended over the gap, their use would be spread over hours the machine slept,
        // or counted at times it never ran.
        if let lastTick {
            let drift = Duration.seconds(wall.timeIntervalSince(lastTick.wall)) - (monotonic - lastTick.monotonic)
            if drift > Self.clockJump || drift < .zero - Self.clockJump { open.removeAll() }
        }
        lastTick = (monotonic, wall)
        for sample in samples {
            let previous = lastPresence[sample.session]
            if previous != sample.presence { lastPresence[sample.session] = sample.presence }
            let inUse = sample.presence.counts ? sample.applicationsInUse : []
            var current = open[sample.session] ?? [:]
            for (use, interval) in current {
                intervals.append(
                    self.interval(sample.user, sample.session, use, interval, monotonic: monotonic, wall: wall))
                if !inUse.contains(use) { current[use] = nil }
            }
            var started: AppUse?
            for use in inUse where current[use] == nil {
                current[use] = Open(start: wall, startMonotonic: monotonic)
                started = started ?? use
            }
            if let started, previous != nil, previous != .active {
                pickups.append(
                    Pickup(user: sample.user, session: sample.session, application: started.application, time: wall))
            }
            if current.isEmpty {
                if open[sample.session] != nil { open[sample.session] = nil }
            } else {
                open[sample.session] = current
            }
        }
        // A handful of sessions: looked up in the samples rather than collected into a set each tick.
        for session in open.keys.filter({ session in !samples.contains { $0.session == session } }) {
            open[session] = nil
            lastPresence[session] = nil
        }
        return (intervals, pickups)
    }

    private func interval(
        _ user: UserID, _ session: SessionID, _ use: AppUse, _ open: Open, monotonic: Duration, wall: Date
    ) -> UsageInterval {
        UsageInterval(
            user: user, session: session, use: use, start: open.start, end: max(wall, open.start),
            duration: max(.zero, monotonic - open.startMonotonic))
    }
}
