import ScreenTimeModel

import struct Foundation.TimeZone

extension ActivityEngine {
    /// What happened: the engine's only input besides the time it happened at.
    public enum Event: Hashable, Sendable {
        /// Start monitoring an activity, replacing one of the same name (which ends as by `stopMonitoring`).
        /// Refused with `.monitoringRefused` when it breaks a limit.
        case startMonitoring(ActivityRegistration)
        /// Stop monitoring these activities; an interval in progress ends with `intervalDidEnd`.
        case stopMonitoring([DeviceActivityName])
        /// What one session showed at this moment; it holds until the session's next sample.
        case sample(UsageSample)
        /// A logind session is gone.
        case sessionEnded(UserID, SessionID)
        /// A wake-up the engine asked for with `.scheduleWakeUp` (or any tick: nothing else is implied).
        case wakeUp
        /// The wall clock was set (`TFD_TIMER_CANCEL_ON_SET` fired). The new time is in `Now`.
        case wallClockChanged
        /// The system time zone changed.
        case timeZoneChanged(TimeZone)
        /// The system is about to suspend: use stops counting until sessions are sampled again.
        case systemWillSuspend
        /// The system resumed from suspend: what sessions showed before is stale.
        case systemDidResume
        /// Every session's state is unknown (the collector restarted): stop counting until each is sampled again.
        case sessionsUnknown
        /// A user's settings store now holds `settings`; `nil` clears the store (`clearAllSettings()`).
        case settingsStoreChanged(user: UserID, store: SettingsStoreName, settings: ShieldSettings?)
    }
}
