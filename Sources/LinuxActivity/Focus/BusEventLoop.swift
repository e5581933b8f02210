import SystemPackage

/// The event loop of a focus source that listens on a D-Bus bus (GNOME Shell, KWin): dispatch every message,
/// refresh something (the idle time) at a fixed interval, follow one more descriptor (a Wayland connection) when
/// given, and sleep in `poll(2)` on the bus, that descriptor and the wake-up descriptor in between.
enum BusEventLoop {
    /// Runs on the calling thread until `thread` is stopped, `keepRunning` returns false or the bus fails.
    /// `refresh` runs every `interval` (never when nil); `onReadable` runs when `descriptor` is readable, and returns
    /// false to stop following it.
    static func run(
        bus: Bus, on thread: EventThread, refreshEvery interval: Duration?, keepRunning: () -> Bool,
        following descriptor: FileDescriptor? = nil, onReadable: () -> Bool = { false }, refresh: () -> Void
    ) {
        let wakeup = thread.wakeup
        var nextRefresh = interval.map { ContinuousClock.now + $0 }
        var followed = descriptor
        while !thread.isStopping, keepRunning() {
            do {
                while try bus.process() {}
                if let interval, let due = nextRefresh, ContinuousClock.now >= due {
                    refresh()
                    nextRefresh = ContinuousClock.now + interval
                    continue
                }
                bus.flush()
                let ready = try Readiness.wait(
                    for: [bus.fileDescriptor, wakeup.fileDescriptor] + (followed.map { [$0] } ?? []),
                    timeout: nextRefresh.map { $0 - ContinuousClock.now })
                if ready[1] { wakeup.drain() }
                if ready.count > 2, ready[2], !onReadable() { followed = nil }
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
