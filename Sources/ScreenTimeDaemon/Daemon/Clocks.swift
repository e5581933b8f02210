import Foundation
import Glibc
import ScreenTimeEngine
import Synchronization

/// The clocks the daemon reads, in one place.
public enum Clocks {
    /// `CLOCK_MONOTONIC` (suspend excluded) as time since boot.
    public static func monotonic() -> Duration { .nanoseconds(monotonicInstant().nanoseconds) }

    /// `CLOCK_MONOTONIC` as an instant (integer nanoseconds since boot).
    public static func monotonicInstant() -> MonotonicInstant {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return MonotonicInstant(nanoseconds: Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec))
    }

    /// Monotonic time, wall time (`CLOCK_REALTIME`) and the system time zone, read together.
    public static func now() -> Now {
        let monotonic = monotonicInstant()
        var wall = timespec()
        clock_gettime(CLOCK_REALTIME, &wall)
        return Now(
            monotonic: monotonic,
            wallClock: WallClockInstant(nanosecondsSince1970: Int64(wall.tv_sec) * 1_000_000_000 + Int64(wall.tv_nsec)),
            timeZone: SystemTimeZone.current())
    }
}

/// The system time zone, read once and again when `/etc/localtime` changed (Foundation caches `TimeZone.current`).
/// The engine loop calls `checkForChange()` when `/etc` reports a change of the file.
enum SystemTimeZone {
    static let path = "/etc/localtime"
    private static let cache = Mutex<(stamp: FileStamp?, zone: TimeZone)?>(nil)

    static func current() -> TimeZone {
        cache.withLock { cached in
            if let cached { return cached.zone }
            let read = (FileStamp(path: path), zone())
            cached = read
            return read.1
        }
    }

    /// Reads the zone again if the file's stamp changed since it was read.
    static func checkForChange() {
        let stamp = FileStamp(path: path)
        cache.withLock { cached in
            if let cached, cached.stamp == stamp { return }
            cached = (stamp, zone())
        }
    }

    private static func zone() -> TimeZone {
        let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? ""
        let identifier = target.components(separatedBy: "zoneinfo/").last ?? ""
        return TimeZone(identifier: identifier) ?? TimeZone(identifier: ProcessInfo.processInfo.environment["TZ"] ?? "")
            ?? TimeZone.current
    }
}
