import Enforcement
import Foundation
import LinuxActivity
import ScreenTimeEngine
import ScreenTimeModel
import SystemPackage

/// The processes that inherited their app from a parent, kept beside the ledger (`inherited-apps.json`, replaced
/// atomically): a restart recalls as that app each one whose parent has exited by then (a game started by a launcher
/// that has exited would otherwise be known by its program alone, no longer count toward its limit, and lose its
/// shield). A file of another boot holds nothing: its pids and start times may match this boot's processes.
struct InheritedAppsFile {
    let path: String

    private struct Contents: Codable {
        var bootID: String?
        var processes: [Process]
    }

    private struct Process: Codable {
        var pid: Int32
        var startTime: UInt64
        var app: String
        var program: String?
    }

    /// What an earlier run of this boot kept; empty when there is no file, or it can't be read.
    func load() -> [ProcessIdentity: RecalledApp] {
        guard let data = FileManager.default.contents(atPath: path),
            let contents = try? JSONDecoder().decode(Contents.self, from: data),
            contents.bootID != nil, contents.bootID == BootID.current
        else { return [:] }
        var apps: [ProcessIdentity: RecalledApp] = [:]
        for process in contents.processes {
            apps[ProcessIdentity(pid: ProcessID(process.pid), startTime: process.startTime)] = RecalledApp(
                app: AppID(process.app), program: process.program)
        }
        return apps
    }

    /// Replaces the file with `apps`.
    func save(_ apps: [ProcessIdentity: RecalledApp]) throws {
        let processes = apps.sorted { $0.key.pid < $1.key.pid }.map { identity, recalled in
            Process(
                pid: identity.pid.rawValue, startTime: identity.startTime, app: recalled.app.rawValue,
                program: recalled.program)
        }
        let bytes = try JSONEncoder().encode(Contents(bootID: BootID.current, processes: processes))
        try AtomicFile.write(bytes, to: FilePath(path))
    }
}

extension Daemon {
    /// How often at most the processes that inherited their app are written down (when they changed).
    static let inheritedAppsInterval: Duration = .seconds(5)

    /// Writes down the processes that inherited their app, when they changed and the last write is
    /// `inheritedAppsInterval` old.
    func keepInheritedApps(at now: Now) {
        let revision = collector.table.inheritedRevision
        if let kept = inheritedAppsKept,
            kept.revision == revision || now.monotonic - kept.at < Self.inheritedAppsInterval
        {
            return
        }
        do {
            try InheritedAppsFile(path: settings.inheritedAppsPath).save(collector.inheritedApps())
            inheritedAppsKept = (revision, now.monotonic)
        } catch {
            // Tried again after the interval.
            inheritedAppsKept = (nil, now.monotonic)
            logger.warning(
                "cannot keep the apps processes inherited; a restart knows them by their programs",
                metadata: ["path": "\(settings.inheritedAppsPath)", "error": "\(error)"])
        }
    }
}
