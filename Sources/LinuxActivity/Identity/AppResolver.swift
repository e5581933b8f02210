import ScreenTimeModel

/// Decides which app a process belongs to (DESIGN §2, App identity). Trust order: the systemd unit the process lives
/// in, `/.flatpak-info`, the executable (or an interpreter's script) matched against desktop entries, the nearest
/// recognized ancestor, and last the executable's (or script's) file name. `comm` and `argv[0]` are never used alone,
/// so a process that renames itself keeps its app.
public struct AppResolver: Sendable {
    /// The procfs mount, for `/.flatpak-info` and a relative script's working directory.
    public var procRoot: String

    public init(procRoot: String = "/proc") {
        self.procRoot = procRoot
    }

    /// The app of `entry`, given the app of its parent (already resolved: parents are older) and the desktop
    /// entries of the process's user. Nil for kernel threads.
    public func resolve(_ entry: ProcessEntry, parent: ResolvedApp?, desktopEntries: DesktopEntryIndex) -> ResolvedApp? {
        if entry.isKernelThread { return nil }
        if let path = entry.controlGroup?.path {
            for unit in path.split(separator: "/").reversed() {
                if let id = UnitName.appID(of: unit) { return ResolvedApp(id: id, source: .unit) }
            }
        }
        // Inside a flatpak sandbox the executable lives under /app or /usr of the runtime; only then is
        // /.flatpak-info worth a look (flatpak normally names its scope too, caught above).
        if entry.executable?.hasPrefix("/app/") ?? true || entry.controlGroup?.path.contains("flatpak") == true,
            let id = flatpakApplication(of: entry.pid)
        {
            return ResolvedApp(id: id, source: .flatpak)
        }
        let program = program(of: entry)
        if let program, let desktopEntry = desktopEntries.entry(forExecutable: program.path) {
            return ResolvedApp(id: AppID(desktopEntry.id), source: .desktopEntry)
        }
        if let parent, parent.source.isInherited { return ResolvedApp(id: parent.id, source: .inherited) }
        if let program { return ResolvedApp(id: AppID(baseName(program.path)), source: program.isScript ? .script : .executable) }
        return nil
    }

    /// The file the process runs: the interpreter's script when the executable is an interpreter running one, else the
    /// executable. Falls back to argv[0] when `/proc/PID/exe` is unreadable (another user's process, not root).
    func program(of entry: ProcessEntry) -> (path: String, isScript: Bool)? {
        let executable = entry.executable ?? entry.arguments.first.flatMap { $0.isEmpty ? nil : $0 }
        guard let executable else { return nil }
        if ProgramResolver.isInterpreter(baseName(executable)),
            let script = ProgramResolver.script(arguments: entry.arguments)
        {
            if script.hasPrefix("/") { return (FileSystem.realPath(script) ?? script, true) }
            if script.contains("/"), let cwd = FileSystem.readLink("\(procRoot)/\(entry.pid.rawValue)/cwd") {
                let joined = cwd + "/" + script
                return (FileSystem.realPath(joined) ?? joined, true)
            }
            return (script, true)
        }
        return (executable, false)
    }

    /// The `name` of `[Application]` in the process's `/.flatpak-info`, read through `/proc/PID/root`.
    func flatpakApplication(of pid: ProcessID) -> AppID? {
        guard let text = FileSystem.readText("\(procRoot)/\(pid.rawValue)/root/.flatpak-info") else { return nil }
        var inApplication = false
        for line in text.split(separator: "\n") {
            if line.hasPrefix("[") {
                inApplication = line == "[Application]"
            } else if inApplication, line.hasPrefix("name=") {
                let name = line.dropFirst(5)
                return name.isEmpty ? nil : AppID(String(name))
            }
        }
        return nil
    }
}
