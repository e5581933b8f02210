/// When an activity's intervals run: Apple's `DeviceActivitySchedule` in the engine's own terms.
///
/// An interval starts at a moment matching `intervalStart` and ends at the first later moment matching
/// `intervalEnd`, both in local wall-clock time, so `22:00`–`07:00` spans midnight. `warningTime` is how long
/// before a boundary (and before an event's threshold) the warning callbacks come.
public struct ActivitySchedule: Hashable, Sendable, Codable {
    public var intervalStart: CalendarPattern
    public var intervalEnd: CalendarPattern
    /// Whether a new interval follows each one; a schedule that does not repeat ends after its first interval.
    public var repeats: Bool
    public var warningTime: Duration?

    public init(
        intervalStart: CalendarPattern, intervalEnd: CalendarPattern, repeats: Bool, warningTime: Duration? = nil
    ) {
        self.intervalStart = intervalStart
        self.intervalEnd = intervalEnd
        self.repeats = repeats
        self.warningTime = warningTime
    }
}
