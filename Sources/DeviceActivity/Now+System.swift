import Glibc
import ScreenTimeEngine

extension Now {
    /// The current time on both clocks: `CLOCK_MONOTONIC` and `CLOCK_REALTIME`, read one after the other
    /// (`clock_gettime(2)`).
    @Sendable public static func system() -> Now {
        Now(
            monotonic: MonotonicInstant(nanoseconds: read(CLOCK_MONOTONIC)),
            wallClock: WallClockInstant(nanosecondsSince1970: read(CLOCK_REALTIME)))
    }

    private static func read(_ clock: clockid_t) -> Int64 {
        var time = timespec()
        // clock_gettime cannot fail for these clocks with a valid pointer.
        clock_gettime(clock, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}
