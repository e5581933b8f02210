import Logging

extension Logger.Level {
    /// The syslog priority journald files this level under (`PRIORITY=`): `critical` 2, `error` 3, `warning` 4,
    /// `notice` 5, `info` 6, `debug` and `trace` 7. swift-log has no `alert` or `emergency`.
    public var syslogPriority: Int {
        switch self {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }
}
