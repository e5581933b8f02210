import Foundation
import Glibc
import ScreenTimeEngine
import Synchronization

/// The clocks the daemon reads, in one place.
public enum Clocks {
    /// `CLOCK_MONOTONIC` (suspend excluded) as time since boot.
    public static func monotonic() -> Duration {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }

    /// Monotonic time, wall time (`CLOCK_REALTIME`) and the system time zone, read together.
    public static func now() -> Now {
        let monotonic = monotonic()
        var wall = timespec()
        clock_gettime(CLOCK_REALTIME, &wall)
        return Now(
            monotonic: MonotonicInstant(sinceBoot: monotonic),
            wallClock: WallClockInstant(nanosecondsSince1970: Int64(wall.tv_sec) * 1_000_000_000 + Int64(wall.tv_nsec)),
            timeZone: SystemTimeZone.current())
    }
}

/// The system time zone, re-read when `/etc/localtime` changes (Foundation caches `TimeZone.current`).
enum SystemTimeZone {
    private static let cache = Mutex<(stamp: FileStamp?, zone: TimeZone)>((nil, TimeZone.current))

    static func current() -> TimeZone {
        let stamp = FileStamp(path: "/etc/localtime")
        return cache.withLock { cached in
            if stamp != cached.stamp {
                let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/etc/localtime")) ?? ""
                let identifier = target.components(separatedBy: "zoneinfo/").last ?? ""
                cached = (stamp, TimeZone(identifier: identifier) ?? TimeZone(identifier: ProcessInfo.processInfo.environment["TZ"] ?? "") ?? TimeZone.current)
            }
            return cached.zone
        }
    }
}
