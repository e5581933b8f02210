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

    /// How long ago this process was started (`/proc/self/stat`'s start time against `CLOCK_BOOTTIME`), to the
    /// kernel's clock tick (10 ms).
    public static func sinceProcessStart() -> Duration {
        guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return .zero }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 19, let ticks = Int64(fields[19]) else { return .zero }
        var boot = timespec()
        clock_gettime(CLOCK_BOOTTIME, &boot)
        let hertz = Int64(sysconf(Int32(_SC_CLK_TCK)))
        let started = ticks * 1_000_000_000 / max(hertz, 1)
        return .nanoseconds(Int64(boot.tv_sec) * 1_000_000_000 + Int64(boot.tv_nsec) - started)
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
