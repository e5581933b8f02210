/// The names of the daemon's D-Bus service: one object, `/org/screentime/ScreenTime1`, owning
/// `org.screentime.ScreenTime1`, with one versioned interface per concern (`docs/DBUS.md`).
public enum ScreenTimeBusName {
    /// The well-known name the daemon owns.
    public static let service = "org.screentime.ScreenTime1"
    /// The one object the daemon exports.
    public static let objectPath = "/org/screentime/ScreenTime1"

    /// The interfaces of the object, each versioned: an incompatible change is a new interface (`…2`).
    public enum Interface: String, CaseIterable, Sendable {
        /// The daemon's state (properties), its status and a policy reload.
        case daemon = "org.screentime.Daemon1"
        /// Asking for, reading and withdrawing authorization.
        case authorization = "org.screentime.Authorization1"
        /// Monitored activities: start, stop, list, read one, its remaining time; the `Callback` signal.
        case activities = "org.screentime.Activities1"
        /// Named settings stores: read, set, clear, list; the `ShieldChanged` signal.
        case settings = "org.screentime.Settings1"
        /// Usage: the data behind reports.
        case usage = "org.screentime.Usage1"
        /// The apps the daemon knows, with their tokens, names and categories.
        case catalog = "org.screentime.Catalog1"
    }
}
