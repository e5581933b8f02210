import struct Foundation.Date
import struct Foundation.TimeZone

/// The mapping between wall-clock instants and local times in one time zone, with daylight-saving rules.
///
/// A local time that a spring-forward gap skips maps to the first instant whose local time is at or after it (the
/// end of the gap); one that a fall-back repeats maps to its first occurrence. Reads the zone's rules through
/// Foundation's `TimeZone`, a pure function of the zone's identifier; never reads a clock.
struct ZoneRules: Sendable {
    let timeZone: TimeZone

    /// Seconds east of UTC in force at `secondsSince1970` (UTC).
    func offset(atSecond secondsSince1970: Int64) -> Int64 {
        Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(secondsSince1970))))
    }

    /// The local time shown at a wall-clock instant, to the second.
    func localTime(at instant: WallClockInstant) -> LocalTime {
        let second = instant.secondsSince1970
        return LocalTime(secondsSince1970: second + offset(atSecond: second))
    }

    /// The first wall-clock instant whose local time is `local` or later.
    func firstInstant(atOrAfter local: LocalTime) -> WallClockInstant {
        let l = local.secondsSince1970
        let earlierOffset = offset(atSecond: l - 86_400)
        let laterOffset = offset(atSecond: l + 86_400)
        var best: Int64?
        for candidate in [l - earlierOffset, l - laterOffset] where candidate + offset(atSecond: candidate) == l {
            best = min(best ?? candidate, candidate)
        }
        if let best { return WallClockInstant(secondsSince1970: best) }
        // A gap: local time jumps over `l`. Within this window local time runs forward except for that one jump,
        // so "local time reached `l`" is monotone and a binary search finds the jump.
        var low = min(l - earlierOffset, l - laterOffset) - 1
        var high = max(l - earlierOffset, l - laterOffset) + 1
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if middle + offset(atSecond: middle) >= l { high = middle } else { low = middle }
        }
        return WallClockInstant(secondsSince1970: high)
    }
}
