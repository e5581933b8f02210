import ScreenTimeEngine
import ScreenTimeModel

/// The callbacks of monitored activities: Apple's `DeviceActivityMonitor`. Subclass it and override what you need;
/// every callback does nothing by default.
///
/// ```swift
/// final class Monitor: DeviceActivityMonitor {
///     override func eventDidReachThreshold(_ event: DeviceActivityEvent.Name, activity: DeviceActivityName) {
///         ManagedSettingsStore(named: .limits).shield.applications = games
///     }
/// }
/// ```
open class DeviceActivityMonitor {
    public init() {}

    /// An interval of `activity` started (or monitoring started inside one).
    open func intervalDidStart(for activity: DeviceActivityName) {}
    /// An interval of `activity` ended (or monitoring stopped inside one).
    open func intervalDidEnd(for activity: DeviceActivityName) {}
    /// Use toward `event` reached its threshold in the current interval.
    open func eventDidReachThreshold(_ event: DeviceActivityEvent.Name, activity: DeviceActivityName) {}
    /// An interval of `activity` starts in the schedule's `warningTime`.
    open func intervalWillStartWarning(for activity: DeviceActivityName) {}
    /// The current interval of `activity` ends in the schedule's `warningTime`.
    open func intervalWillEndWarning(for activity: DeviceActivityName) {}
    /// Use toward `event` is the schedule's `warningTime` short of its threshold.
    open func eventWillReachThresholdWarning(_ event: DeviceActivityEvent.Name, activity: DeviceActivityName) {}

    /// Calls the callback an engine action names; returns `false` for an action that is not a callback.
    @discardableResult
    public final func receive(_ action: ActivityEngine.Action) -> Bool {
        switch action {
        case .intervalDidStart(let activity): intervalDidStart(for: activity)
        case .intervalDidEnd(let activity): intervalDidEnd(for: activity)
        case .intervalWillStartWarning(let activity): intervalWillStartWarning(for: activity)
        case .intervalWillEndWarning(let activity): intervalWillEndWarning(for: activity)
        case .eventDidReachThreshold(let event, let activity, _): eventDidReachThreshold(event, activity: activity)
        case .eventWillReachThresholdWarning(let event, let activity, _):
            eventWillReachThresholdWarning(event, activity: activity)
        default: return false
        }
        return true
    }
}
