/// The event loop of a focus source that listens on a D-Bus bus (GNOME Shell, KWin): dispatch every message,
/// refresh something (the idle time) at a fixed interval, and sleep in `poll(2)` on the bus and the wake-up
/// descriptor in between.
enum BusEventLoop {
    /// Runs on the calling thread until `thread` is stopped, `keepRunning` returns false or the bus fails.
    static func run(
        bus: Bus, on thread: EventThread, refreshEvery interval: Duration, keepRunning: () -> Bool,
        refresh: () -> Void
    ) {
        let wakeup = thread.wakeup
        var nextRefresh = ContinuousClock.now + interval
        while !thread.isStopping, keepRunning() {
            do {
                while try bus.process() {}
                if ContinuousClock.now >= nextRefresh {
                    refresh()
                    nextRefresh = ContinuousClock.now + interval
                    continue
                }
                bus.flush()
                let ready = try Readiness.wait(
                    for: [bus.fileDescriptor, wakeup.fileDescriptor], timeout: nextRefresh - ContinuousClock.now)
                if ready[1] { wakeup.drain() }
            } catch {
                return
            }
        }
    }
}

/// An idle time read from the desktop and the instant it was read. Between reads it ages on its own: without input
/// the idle time grows with the clock.
struct IdleReading {
    let time: Duration
    let readAt: ContinuousClock.Instant

    init(_ time: Duration, readAt: ContinuousClock.Instant = .now) {
        self.time = time
        self.readAt = readAt
    }

    /// The idle time at `instant`.
    func aged(to instant: ContinuousClock.Instant = .now) -> Duration { time + (instant - readAt) }
}
