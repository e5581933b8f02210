import ScreenTimeModel

/// An app an earlier run knew a process as, recalled by the first reading of the processes after a restart.
public struct RecalledApp: Hashable, Sendable, Codable {
    public var app: AppID
    /// The program the process ran then (`AppResolver.program(of:)`: an interpreter's script, else the executable);
    /// nil for any (a process held stopped or frozen runs no other).
    public var program: String?

    public init(app: AppID, program: String? = nil) {
        self.app = app
        self.program = program
    }
}

extension Collector {
    /// Before the first tick after a restart: the apps the last run knew processes as. A process that had inherited
    /// its app from a parent gone since (a game started by a launcher that exited) is that app again, where nothing
    /// else names it (its program only by its file name) and it still runs the program it ran then; otherwise the
    /// restart would know it only by its program, and stop counting it, or release its shield.
    public func recall(_ apps: [ProcessIdentity: RecalledApp]) {
        recalledApps = apps
    }

    /// The processes that inherited their app from a parent, with that app and their program: what a restart
    /// recalls. Changes only when `table.inheritedRevision` does.
    public func inheritedApps() -> [ProcessIdentity: RecalledApp] {
        var apps: [ProcessIdentity: RecalledApp] = [:]
        for entry in table.entries.values {
            guard let app = entry.app, app.source == .inherited else { continue }
            apps[entry.identity] = RecalledApp(app: app.id, program: resolver.program(of: entry)?.path)
        }
        return apps
    }

    /// The app recalled for `entry`, if it still runs the program it ran then.
    func recalledApp(of entry: ProcessEntry) -> AppID? {
        guard let recalled = recalledApps[entry.identity],
            recalled.program == nil || recalled.program == resolver.program(of: entry)?.path
        else { return nil }
        return recalled.app
    }
}
