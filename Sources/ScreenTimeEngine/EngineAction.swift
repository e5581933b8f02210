import ScreenTimeModel

extension ActivityEngine {
    /// What the caller must do, in order. The six monitor callbacks keep Apple's names; event callbacks name the
    /// user whose use reached the point, since the engine counts each user separately.
    public enum Action: Hashable, Sendable, CustomStringConvertible {
        case intervalDidStart(DeviceActivityName)
        case intervalDidEnd(DeviceActivityName)
        case intervalWillStartWarning(DeviceActivityName)
        case intervalWillEndWarning(DeviceActivityName)
        case eventDidReachThreshold(ActivityEventName, activity: DeviceActivityName, user: UserID)
        case eventWillReachThresholdWarning(ActivityEventName, activity: DeviceActivityName, user: UserID)
        /// The union of a user's settings stores changed: enforce `shield` from now on.
        case shieldChanged(user: UserID, shield: EffectiveShield)
        /// Call `handle(.wakeUp, at:)` at this monotonic instant; replaces any earlier request.
        case scheduleWakeUp(MonotonicInstant)
        /// No wake-up is needed any more.
        case cancelWakeUp
        /// `startMonitoring` was refused; nothing changed.
        case monitoringRefused(DeviceActivityName, MonitoringError)
        /// Durable state changed (monitoring, an interval, a callback given, a store): persist `snapshot()` now.
        /// Usage alone does not ask for this; the caller also persists on its own timer.
        case persistSnapshot

        public var description: String {
            switch self {
            case .intervalDidStart(let activity): "intervalDidStart(\(activity))"
            case .intervalDidEnd(let activity): "intervalDidEnd(\(activity))"
            case .intervalWillStartWarning(let activity): "intervalWillStartWarning(\(activity))"
            case .intervalWillEndWarning(let activity): "intervalWillEndWarning(\(activity))"
            case .eventDidReachThreshold(let event, let activity, let user):
                "eventDidReachThreshold(\(event), \(activity), user \(user))"
            case .eventWillReachThresholdWarning(let event, let activity, let user):
                "eventWillReachThresholdWarning(\(event), \(activity), user \(user))"
            case .shieldChanged(let user, let shield): "shieldChanged(user \(user), \(shield))"
            case .scheduleWakeUp(let instant): "scheduleWakeUp(\(instant))"
            case .cancelWakeUp: "cancelWakeUp"
            case .monitoringRefused(let activity, let error): "monitoringRefused(\(activity), \(error))"
            case .persistSnapshot: "persistSnapshot"
            }
        }

        /// Whether this is one of the six monitor callbacks.
        public var isMonitorCallback: Bool {
            switch self {
            case .intervalDidStart, .intervalDidEnd, .intervalWillStartWarning, .intervalWillEndWarning,
                .eventDidReachThreshold, .eventWillReachThresholdWarning:
                true
            default: false
            }
        }
    }
}
