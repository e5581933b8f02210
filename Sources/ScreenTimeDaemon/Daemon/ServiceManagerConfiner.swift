import Enforcement
import Foundation
import LinuxActivity
import Logging
import ScreenTimeModel

/// Moves a shielded process out of a cgroup it shares into a transient scope of the service manager the daemon runs
/// under (the user manager in individual mode, the system manager in guardian mode), so that the scope can be frozen.
///
/// The call is `org.freedesktop.systemd1.Manager.StartTransientUnit` with `PIDs=`; the scope is named
/// `app-screentime-APP-PID.scope`, so that it reads as the app's own cgroup. A user manager can move only processes
/// of its own tree, never those of a login session's scope. The system manager (guardian mode) moves any process,
/// into a scope in the user's `user-UID.slice`: root's, so the user can neither write its `cgroup.freeze` nor move a
/// process out of it (that takes write access to `user-UID.slice` itself), and still the user's, so the collector
/// counts its processes as the user's apps.
///
/// Used by the engine loop's thread alone (the bus connection is opened on first use there).
final class ServiceManagerConfiner: ProcessConfiner {
    private let logger: Logger
    private var bus: Bus?
    private let systemMode: Bool

    init(system: Bool, logger: Logger) {
        self.systemMode = system
        self.logger = logger
    }

    func confine(_ process: ProcessIdentity, app: AppID) throws(EnforcementError) -> CgroupPath? {
        guard let status = ProcessStatus.read(process.pid), status.startTime == process.startTime else { return nil }
        let name = ControlGroup.shieldScopePrefix + "\(Self.unitNamePart(app.rawValue))-\(process.pid.rawValue).scope"
        // Moved by an earlier shield and left there when it was lifted: the scope is there already (starting it again
        // would fail, the unit exists).
        if let line = Self.unifiedCgroup(of: process.pid), line.hasSuffix("/" + name) { return CgroupPath(line) }
        let bus = try connection()
        var properties: [BusValue] = [
            Bus.unitProperty("PIDs", .array(elementSignature: "u", [.uint32(UInt32(process.pid.rawValue))])),
            Bus.unitProperty("Description", .string("\(app.rawValue), shielded by Screen Time")),
            Bus.unitProperty("CollectMode", .string("inactive-or-failed")),
        ]
        if systemMode {
            // The slice of the user it runs for: a process of their rootless container runs as a uid of no account.
            var folder = stat()
            let directory = "/proc/\(process.pid.rawValue)"
            guard stat(directory, &folder) == 0 else { return nil }
            let owner = ProcessOwner.user(
                ofProcessIn: Self.readableFolder(of: process.pid), runningAs: UserID(folder.st_uid))
            properties.append(Bus.unitProperty("Slice", .string("user-\(owner.rawValue).slice")))
        }
        do {
            try bus.startTransientUnit(name, properties: properties, timeout: .seconds(1))
        } catch {
            // Unless the manager itself refused, the connection may be what failed (the bus restarted, the call
            // timed out): the next move opens a new one.
            if !(error.remoteError?.name.hasPrefix("org.freedesktop.systemd1.") ?? false) { self.bus = nil }
            throw EnforcementError(.confineFailed, "moving \(process) into \(name): \(error)")
        }
        // The manager moves the process while it starts the scope; the reply may come first.
        for _ in 0..<100 {
            guard let line = Self.unifiedCgroup(of: process.pid) else { return nil }
            if line.hasSuffix("/" + name) {
                // The pid the manager moved is still this process's, not a new one's that reused it meanwhile (that
                // one is left unfrozen in the scope).
                guard ProcessStatus.read(process.pid)?.startTime == process.startTime else { return nil }
                return CgroupPath(line)
            }
            usleep(1000)
        }
        throw EnforcementError(.confineFailed, "\(process) did not arrive in \(name)")
    }

    private func connection() throws(EnforcementError) -> Bus {
        if let bus { return bus }
        do {
            let opened: Bus
            if systemMode {
                opened = try Bus.system()
            } else {
                guard let address = ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"] else {
                    throw EnforcementError(.confineFailed, "no session bus (DBUS_SESSION_BUS_ADDRESS is not set)")
                }
                opened = try Bus.connect(address: address)
            }
            bus = opened
            return opened
        } catch let error as EnforcementError {
            throw error
        } catch {
            throw EnforcementError(.confineFailed, "cannot reach the service manager: \(error)")
        }
    }

    /// The process's cgroup path, as the collector parses `/proc/PID/cgroup`; nil when it is gone.
    /// Read through a thread that runs once the process's main thread has exited: the main thread stays where it
    /// exited when the manager moves the process.
    private static func unifiedCgroup(of pid: ProcessID) -> String? {
        guard let text = try? String(contentsOfFile: readableFolder(of: pid) + "/cgroup", encoding: .utf8) else {
            return nil
        }
        return ControlGroup(parsing: text)?.path
    }

    /// The folder of `/proc` to read process `pid` through now (`ProcessTable.readableThread`).
    private static func readableFolder(of pid: ProcessID) -> String {
        ProcessEntry.folder(of: pid, thread: ProcessTable.readableThread(of: pid), in: "/proc")
    }

    /// The app's id as systemd escapes it in a unit name (systemd-escape(1)): ASCII letters, digits, `.` and `_`
    /// stay, every other byte becomes `\xNN` (`-`, which separates the name's parts, becomes `\x2d`), so that
    /// `UnitName.appID(of:)` reads the same id back from the scope after a restart.
    static func unitNamePart(_ text: String) -> String {
        var escaped = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"):
                escaped.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                escaped += "\\x" + (byte < 16 ? "0" : "") + String(byte, radix: 16)
            }
        }
        return escaped
    }
}
