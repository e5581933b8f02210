/// A `DeviceActivityMonitor` callback, named as the `--callback` argument of a monitor extension: the daemon that
/// runs extensions and `DeviceActivityMonitorMain` that parses their arguments share this one list.
public enum MonitorCallback: String, Hashable, Sendable, CaseIterable {
    case intervalDidStart
    case intervalDidEnd
    case intervalWillStartWarning
    case intervalWillEndWarning
    case eventWillReachThresholdWarning
    case eventDidReachThreshold

    /// Whether the callback names an event (and so takes `--event`).
    public var takesEvent: Bool { self == .eventWillReachThresholdWarning || self == .eventDidReachThreshold }
}
