import ScreenTimeModel

/// Why an activity cannot be monitored: Apple's `DeviceActivityCenter.MonitoringError`, with the reason attached.
///
/// The case names are Apple's, so `catch DeviceActivityCenter.MonitoringError.intervalTooShort` works unchanged.
public enum MonitoringError: Error, Hashable, Sendable, Codable, CustomStringConvertible {
    /// Monitoring it would exceed the limit on activities.
    case excessiveActivities(limit: Int)
    /// The schedule's interval is longer than the limit.
    case intervalTooLong(length: Duration, maximum: Duration)
    /// The schedule's interval is shorter than the limit.
    case intervalTooShort(length: Duration, minimum: Duration)
    /// A date component cannot be used: out of range, unsupported, never matching, or a non-positive threshold.
    case invalidDateComponents(reason: String)
    /// The caller may not monitor activity (refused before the engine: by the daemon's authorization).
    case unauthorized

    public var description: String {
        switch self {
        case .excessiveActivities(let limit):
            "too many activities: at most \(limit) may be monitored at once"
        case .intervalTooLong(let length, let maximum):
            "the schedule's interval is \(length.hoursMinutesSeconds), longer than the maximum of "
                + maximum.hoursMinutesSeconds
        case .intervalTooShort(let length, let minimum):
            "the schedule's interval is \(length.hoursMinutesSeconds), shorter than the minimum of "
                + minimum.hoursMinutesSeconds
        case .invalidDateComponents(let reason):
            "invalid date components: \(reason)"
        case .unauthorized:
            "not authorized to monitor device activity"
        }
    }
}

extension Duration {
    /// `1h30m`, `45s`, `7d` – for messages.
    var hoursMinutesSeconds: String {
        var seconds = components.seconds
        guard seconds > 0 else { return "0s" }
        var text = ""
        for (unit, size) in [("d", Int64(86_400)), ("h", 3_600), ("m", 60), ("s", 1)] where seconds >= size {
            text += "\(seconds / size)\(unit)"
            seconds %= size
        }
        return text
    }
}
