import ScreenTimeModel

/// Connects the collector to the desktops' focus sources (`FocusSources`).
public enum DesktopFocus {
    /// Opens the focus source of a graphical session, given the environment of one of its processes; where its
    /// users are limited by a guardian (`limitedByGuardian`), they pick nothing of what reports their focus
    /// (`FocusSessionContext.limitedByGuardian`). The display servers tell idleness at the resolution
    /// `FocusSessionContext.idleResolution(forTimeout:)` gives for `idleTimeout`.
    public static func factory(limitedByGuardian: Bool, idleTimeout: Duration = .seconds(180))
        -> @Sendable (SessionInfo, [String: String]) -> Result<any FocusSource, Collector.FocusUnavailable>
    {
        { session, environment in
            let context = FocusSessionContext(
                sessionType: session.type.rawValue, display: session.display, desktop: session.desktop,
                uid: session.user, home: Logind.home(of: session.user),
                runtimeDirectory: environment["XDG_RUNTIME_DIR"], environment: environment,
                sessionID: session.id.rawValue, leader: session.leader, limitedByGuardian: limitedByGuardian,
                idleResolution: FocusSessionContext.idleResolution(forTimeout: idleTimeout))
            do {
                return .success(try FocusSources.make(context))
            } catch {
                return .failure(Collector.FocusUnavailable("\(error)"))
            }
        }
    }
}
