import ScreenTimeModel

/// An activity to monitor: its name, schedule and named events, and whose use it counts.
public struct ActivityRegistration: Hashable, Sendable, Codable {
    public var name: DeviceActivityName
    public var schedule: ActivitySchedule
    public var events: [ActivityEventName: ActivityEvent]
    /// The users whose use counts, or `nil` for every user the engine sees.
    public var users: Set<UserID>?

    public init(
        name: DeviceActivityName, schedule: ActivitySchedule, events: [ActivityEventName: ActivityEvent] = [:],
        users: Set<UserID>? = nil
    ) {
        self.name = name
        self.schedule = schedule
        self.events = events
        self.users = users
    }

    /// Whether `user`'s use counts toward this activity's events.
    public func applies(to user: UserID) -> Bool { users.includes(user) }
}
