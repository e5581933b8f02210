/// A `DeviceActivityMonitor` callback, named as the `--callback` argument of a monitor extension.
public enum MonitorCallback: String, Hashable, Sendable, CaseIterable {
    case intervalDidStart
    case intervalDidEnd
    case intervalWillStartWarning
    case intervalWillEndWarning
    case eventWillReachThresholdWarning
    case eventDidReachThreshold

    /// Whether the callback is about an event (and so takes `--event`).
    public var isEventCallback: Bool { self == .eventWillReachThresholdWarning || self == .eventDidReachThreshold }
}
