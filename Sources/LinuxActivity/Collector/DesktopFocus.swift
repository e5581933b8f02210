import ScreenTimeModel

/// Connects the collector to the desktops' focus sources (`FocusSources`).
public enum DesktopFocus {
    /// Opens the focus source of a graphical session, given the environment of one of its processes; where its
    /// users are limited by a guardian (`limitedByGuardian`), they pick nothing of what reports their focus
    /// (`FocusSessionContext.limitedByGuardian`).
    public static func factory(limitedByGuardian: Bool)
        -> @Sendable (SessionInfo, [String: String]) -> Result<any FocusSource, Collector.FocusUnavailable>
    {
        { session, environment in
            let context = FocusSessionContext(
                sessionType: session.type.rawValue, display: session.display, desktop: session.desktop,
                uid: session.user, home: Logind.home(of: session.user),
                runtimeDirectory: environment["XDG_RUNTIME_DIR"], environment: environment,
                sessionID: session.id.rawValue, leader: session.leader, limitedByGuardian: limitedByGuardian)
            do {
                return .success(try FocusSources.make(context))
            } catch {
                return .failure(Collector.FocusUnavailable("\(error)"))
            }
        }
    }
}
