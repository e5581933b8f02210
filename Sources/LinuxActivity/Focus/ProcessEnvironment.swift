import ScreenTimeModel

/// The environment a process started with, read from `/proc/PID/environ`.
///
/// The collector reads it from a process of a graphical session (its leader, or the first process with a
/// `DISPLAY` or `WAYLAND_DISPLAY`) to learn `DISPLAY`, `XAUTHORITY`, `SWAYSOCK`, `DBUS_SESSION_BUS_ADDRESS` and
/// `XDG_CURRENT_DESKTOP` for `FocusSources.make`.
public enum ProcessEnvironment {
    /// The variables of `pid`'s initial environment; nil when the process is gone or unreadable (another user's
    /// process read by a non-root daemon). `procRoot` lets tests point at a copy of `/proc`.
    ///
    /// A process whose main thread has exited while others run on (`pthread_exit` in `main`) has no `environ` of its
    /// own to read (`ESRCH`): it is read through a thread that runs.
    public static func read(pid: ProcessID, procRoot: String = "/proc") -> [String: String]? {
        let bytes = FileSystem.readBytes("\(procRoot)/\(pid.rawValue)/environ")
        guard bytes?.isEmpty ?? true, let thread = ProcessTable.readableThread(of: pid, procRoot: procRoot) else {
            return bytes.map(parse)
        }
        let folder = ProcessEntry.folder(of: pid, thread: thread, in: procRoot)
        return FileSystem.readBytes(folder + "/environ").map(parse)
    }

    /// Parses NUL-separated `KEY=value` pairs; the first definition of a key wins, as in `getenv(3)`.
    public static func parse(_ bytes: [UInt8]) -> [String: String] {
        var environment: [String: String] = [:]
        for entry in bytes.split(separator: 0) {
            guard let equals = entry.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let key = String(decoding: entry[entry.startIndex..<equals], as: UTF8.self)
            let value = String(decoding: entry[(equals + 1)...], as: UTF8.self)
            if environment[key] == nil { environment[key] = value }
        }
        return environment
    }
}
