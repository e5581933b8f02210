import struct Foundation.TimeZone

/// A reading of `CLOCK_MONOTONIC`: nanoseconds since boot, not counting time spent suspended and not moved by
/// changes of the wall clock. Usage is measured on this clock.
public struct MonotonicInstant: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public var nanoseconds: Int64
    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }
    /// The instant `offset` after boot.
    public init(sinceBoot offset: Duration) { self.nanoseconds = offset.nanoseconds }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.nanoseconds < rhs.nanoseconds }
    public static func + (lhs: Self, rhs: Duration) -> Self { Self(nanoseconds: lhs.nanoseconds + rhs.nanoseconds) }
    public static func - (lhs: Self, rhs: Duration) -> Self { Self(nanoseconds: lhs.nanoseconds - rhs.nanoseconds) }
    public static func - (lhs: Self, rhs: Self) -> Duration { .nanoseconds(lhs.nanoseconds - rhs.nanoseconds) }
    public var description: String { "mono+\(Duration.nanoseconds(nanoseconds))" }
}

/// A reading of `CLOCK_REALTIME`: nanoseconds since 1970-01-01T00:00:00Z. Schedules are evaluated on this clock,
/// in the engine's time zone; it may jump when someone sets the clock.
public struct WallClockInstant: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public var nanosecondsSince1970: Int64
    public init(nanosecondsSince1970: Int64) { self.nanosecondsSince1970 = nanosecondsSince1970 }
    /// The instant `seconds` after the Unix epoch.
    public init(secondsSince1970 seconds: Int64) { self.nanosecondsSince1970 = seconds * 1_000_000_000 }

    /// Whole seconds since the epoch, rounded toward the past.
    public var secondsSince1970: Int64 { nanosecondsSince1970.floorDivided(by: 1_000_000_000) }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.nanosecondsSince1970 < rhs.nanosecondsSince1970 }
    public static func + (lhs: Self, rhs: Duration) -> Self {
        Self(nanosecondsSince1970: lhs.nanosecondsSince1970 + rhs.nanoseconds)
    }
    public static func - (lhs: Self, rhs: Duration) -> Self {
        Self(nanosecondsSince1970: lhs.nanosecondsSince1970 - rhs.nanoseconds)
    }
    public static func - (lhs: Self, rhs: Self) -> Duration {
        .nanoseconds(lhs.nanosecondsSince1970 - rhs.nanosecondsSince1970)
    }
    public var description: String { "wall@\(secondsSince1970)s" }
}

/// The moment at which an event happens, on both clocks, read together by whoever drives the engine.
///
/// The engine never reads a clock: usage is measured on `monotonic`, schedules on `wallClock` in the engine's time
/// zone. A change of the difference between the two is a wall-clock step (someone set the clock, or the system
/// resumed from suspend).
///
/// `timeZone`, when given, is the system time zone at this moment: the engine moves its schedules to it as for
/// `.timeZoneChanged` as soon as its identifier differs from the zone in force, so a caller may pass the zone with
/// every event (`TimeZone.current` after `/etc/localtime` changed) instead of announcing changes. `nil` keeps the
/// zone in force.
public struct Now: Hashable, Sendable, Codable, CustomStringConvertible {
    /// `CLOCK_MONOTONIC`: use is measured on it.
    public var monotonic: MonotonicInstant
    /// `CLOCK_REALTIME`: schedules are evaluated on it, in local time.
    public var wallClock: WallClockInstant
    /// The system time zone, or `nil` to keep the engine's.
    public var timeZone: TimeZone?
    /// The moment on both clocks, optionally with the system time zone.
    public init(monotonic: MonotonicInstant, wallClock: WallClockInstant, timeZone: TimeZone? = nil) {
        self.monotonic = monotonic
        self.wallClock = wallClock
        self.timeZone = timeZone
    }
    /// Both clocks, and the zone's identifier when one is given.
    public var description: String {
        timeZone.map { "\(monotonic) \(wallClock) \($0.identifier)" } ?? "\(monotonic) \(wallClock)"
    }

    /// Wall-clock nanoseconds minus monotonic nanoseconds: constant while the wall clock runs undisturbed.
    var clockOffset: Int64 { wallClock.nanosecondsSince1970 - monotonic.nanoseconds }
}

extension Duration {
    /// The span in whole nanoseconds, rounded toward zero (spans below a nanosecond do not matter here).
    public var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}

extension Int64 {
    /// Division rounding toward negative infinity, so times before 1970 map to the right second and day.
    func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
