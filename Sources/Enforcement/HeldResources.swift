import ScreenTimeModel

/// What the enforcer has frozen or stopped and must undo: the contents of its state file.
///
/// A daemon that crashed with apps shielded reads this at start-up, so that it thaws and resumes exactly what its
/// previous run froze and stopped — and nothing that someone else stopped.
public struct HeldResources: Hashable, Sendable, Codable {
    /// What is held for one app.
    public struct App: Hashable, Sendable, Codable {
        /// The app.
        public var app: AppID
        /// Cgroups the enforcer froze (or asked to freeze), in path order.
        public var frozen: [CgroupPath]
        /// Processes the enforcer stopped with `SIGSTOP`, in pid order.
        public var stopped: [ProcessIdentity]

        /// Creates an entry.
        public init(app: AppID, frozen: [CgroupPath] = [], stopped: [ProcessIdentity] = []) {
            self.app = app
            self.frozen = frozen
            self.stopped = stopped
        }
    }

    /// The format's version; a file with another version is refused rather than misread.
    public var version: Int
    /// Held resources per app, in app order; apps that hold nothing are absent.
    public var apps: [App]

    /// The current format version.
    public static let currentVersion = 1

    /// Creates a value in the current format.
    public init(apps: [App] = []) {
        self.version = Self.currentVersion
        self.apps = apps
    }

    /// Whether nothing is held.
    public var isEmpty: Bool { apps.isEmpty }
}
