import Glibc
import ScreenTimeModel

/// Decides which app a process belongs to (DESIGN §2, App identity). Trust order: the systemd unit the process lives
/// in, `/.flatpak-info`, the executable (or an interpreter's script) matched against desktop entries, the nearest
/// recognized ancestor, and last the executable's (or script's) file name. `comm` and `argv[0]` are never used alone,
/// so a process that renames itself keeps its app.
public struct AppResolver: Sendable {
    /// The procfs mount, for `/.flatpak-info` and a relative script's working directory.
    public var procRoot: String
    /// Whether a systemd unit's name alone says which app runs in it. A guardian can't let it: the limited user
    /// names the scopes they start (`systemd-run --user --scope --unit=app-gnome-org.gnome.Calculator-1.scope game`),
    /// so a unit's app holds only for a process whose program is that app's, or in a scope the guardian daemon had
    /// the system manager make for a shield.
    public var trustsUnitNames: Bool

    public init(procRoot: String = "/proc", trustsUnitNames: Bool = true) {
        self.procRoot = procRoot
        self.trustsUnitNames = trustsUnitNames
    }

    /// The app of `entry`, given the app of its parent (already resolved: parents are older) and the desktop
    /// entries of the process's user. Nil for kernel threads.
    public func resolve(_ entry: ProcessEntry, parent: ResolvedApp?, desktopEntries: DesktopEntryIndex) -> ResolvedApp?
    {
        if entry.isKernelThread { return nil }
        // Read only when needed: a unit's name is trusted without it where unit names are trusted.
        lazy var program = program(of: entry)
        if let path = entry.controlGroup?.path {
            for unit in path.split(separator: "/").reversed() {
                guard let id = UnitName.appID(of: unit) else { continue }
                // A guardian's shield scope names the app the guardian daemon found its process to be, also one that
                // inherited it from a parent gone since (a game's launcher): that stays so after a restart. Only that
                // process: what it starts later is in the scope too.
                if trustsUnitNames || ControlGroup.guardianShieldScopeProcess(path, of: entry.user) == entry.pid
                    || program.map({ runs(id, $0, entry, desktopEntries) }) ?? false
                {
                    return ResolvedApp(id: id, source: .unit)
                }
                break
            }
        }
        // Inside a flatpak sandbox the executable lives under /app or /usr of the runtime; only then is
        // /.flatpak-info worth a look (flatpak normally names its scope too, caught above).
        if entry.executable?.hasPrefix("/app/") ?? true || entry.controlGroup?.mentionsFlatpak == true,
            let id = flatpakApplication(of: entry)
        {
            return ResolvedApp(id: id, source: .flatpak)
        }
        if let program, let desktopEntry = desktopEntry(of: program, running: entry, in: desktopEntries) {
            return ResolvedApp(id: AppID(desktopEntry.id), source: .desktopEntry)
        }
        // A guardian's limited user could start their own program from an allowed app (or fork before the app's
        // exec and exec their program later): it is never that app.
        if let parent, parent.source.isInherited, trustsUnitNames || !(program.map { isUsers($0, entry) } ?? false) {
            return ResolvedApp(id: parent.id, source: .inherited)
        }
        if let program {
            let name = baseName(program.path)
            let source: IdentitySource = program.isScript ? .script : .executable
            // A guardian's limited user names their own files: one named as a system app is known as theirs.
            if !trustsUnitNames, desktopEntries.names(name), isUsers(program, entry) {
                return ResolvedApp(id: AppID("~" + name), source: source)
            }
            return ResolvedApp(id: AppID(name), source: source)
        }
        return nil
    }

    /// Whether `program` is the app `id`'s: its desktop entry's executable, or, for an app named by its executable,
    /// that executable.
    private func runs(
        _ id: AppID, _ program: (path: String, isScript: Bool), _ entry: ProcessEntry,
        _ desktopEntries: DesktopEntryIndex
    ) -> Bool {
        if let desktopEntry = desktopEntry(of: program, running: entry, in: desktopEntries) {
            return desktopEntry.id == id.rawValue
        }
        guard baseName(program.path) == id.rawValue else { return false }
        return trustsUnitNames || !desktopEntries.names(id.rawValue) || !isUsers(program, entry)
    }

    /// The desktop entry whose program `program` is. Where the user is trusted, by its path or else its file name; a
    /// guardian's limited user can copy a game under an allowed app's file name, or mount one on its path in a
    /// namespace of their own, so there only by its path, and only when the process runs that very file (device and
    /// inode of `/proc/PID/exe`, or of the script in the process's root, against the system's file).
    private func desktopEntry(
        of program: (path: String, isScript: Bool), running entry: ProcessEntry, in desktopEntries: DesktopEntryIndex
    ) -> DesktopEntry? {
        if trustsUnitNames { return desktopEntries.entry(forExecutable: program.path) }
        guard let desktopEntry = desktopEntries.entry(forExactExecutable: program.path) else { return nil }
        let running = runningFile(program, entry)
        return FileSystem.sameFile(running, FileSystem.status(program.path)) ? desktopEntry : nil
    }

    /// The metadata of the file `program` names as the process sees it: its executable (`/proc/PID/exe`) or its
    /// script, looked up in its root.
    private func runningFile(_ program: (path: String, isScript: Bool), _ entry: ProcessEntry) -> stat? {
        let process = entry.folder(in: procRoot)
        if program.isScript || entry.executable != program.path {
            return FileSystem.status(program.path, inRoot: process + "/root")
        }
        return FileSystem.status(process + "/exe")
    }

    /// Whether the file the process runs (`program(of:)`) is its user's own: a file they own, or one everyone may
    /// write (a game downloaded or copied into their home), or any file their rootless container runs.
    public func runsUsersOwnProgram(_ entry: ProcessEntry) -> Bool {
        program(of: entry).map { isUsers($0, entry) } ?? false
    }

    /// Whether `program` is the process's user's own: a file they own, or one everyone may write; or any, for a
    /// process of their rootless container (under a subordinate id, its files are theirs to change through its
    /// mapping, whichever of their ids owns them).
    private func isUsers(_ program: (path: String, isScript: Bool), _ entry: ProcessEntry) -> Bool {
        if entry.runsAsSubordinateID { return true }
        guard let file = runningFile(program, entry) else { return false }
        return file.st_uid == entry.user.rawValue || file.st_mode & S_IWOTH != 0
    }

    /// The file the process runs: the interpreter's script when the executable is an interpreter running one, the
    /// program the dynamic loader loaded when it was run through the loader (`ld.so /usr/bin/game`), else the
    /// executable. Falls back to argv[0] when `/proc/PID/exe` is unreadable (another user's process, not root).
    public func program(of entry: ProcessEntry) -> (path: String, isScript: Bool)? {
        let executable = entry.executable ?? entry.arguments.first.flatMap { $0.isEmpty ? nil : $0 }
        guard let executable else { return nil }
        if Self.isDynamicLoader(baseName(executable)), let loaded = loadedProgram(of: entry, loader: executable) {
            return (loaded.path, false)
        }
        if ProgramResolver.isInterpreter(baseName(executable)),
            let script = ProgramResolver.script(arguments: entry.arguments)
        {
            if script.hasPrefix("/") { return (FileSystem.realPath(script) ?? script, true) }
            if script.contains("/"), let cwd = FileSystem.readLink(entry.folder(in: procRoot) + "/cwd") {
                let joined = cwd + "/" + script
                return (FileSystem.realPath(joined) ?? joined, true)
            }
            return (script, true)
        }
        return (executable, false)
    }

    /// The `name` of `[Application]` in the process's `/.flatpak-info`, read through `/proc/PID/root`.
    ///
    /// Where unit names are not trusted (a guardian's limits), the file is not either: the limited user can put one
    /// into a sandbox of their own (`bwrap --ro-bind info /.flatpak-info …`), or install a flatpak of their own under
    /// any name. The name then holds only for what the system's installation of that app runs (`FlatpakInstance`).
    func flatpakApplication(of entry: ProcessEntry) -> AppID? {
        let root = entry.folder(in: procRoot) + "/root"
        // The user's sandbox may hold a FIFO, a device or a huge file there, or a link into this process's root.
        guard let text = FileSystem.readText("/.flatpak-info", inRoot: root) else { return nil }
        let instance = FlatpakInstance(info: text)
        guard let name = instance.name else { return nil }
        if !trustsUnitNames {
            guard let executable = entry.executable,
                instance.runsSystemInstallation(
                    executable: executable, script: program(of: entry).flatMap { $0.isScript ? $0.path : nil },
                    processRoot: root, processExecutable: entry.folder(in: procRoot) + "/exe")
            else { return nil }
        }
        return AppID(name)
    }
}

/// What a flatpak sandbox's `/.flatpak-info` says: the app's name (`[Application] name`), and where the app and its
/// runtime are installed on the host (`[Instance] app-path`, `runtime-path`: mounted in the sandbox at `/app` and
/// `/usr`).
struct FlatpakInstance {
    var name: String?
    var appPath: String?
    var runtimePath: String?

    /// The system's default installation, root's.
    static let defaultInstallation = "/var/lib/flatpak"
    /// Where the system's extra installations are configured (`flatpak-installation(5)`).
    static let installationsFolder = "/etc/flatpak/installations.d"

    /// The system's installations: the default one and each extra one a file of `folder` names (`[Installation
    /// "ID"]`, `Path=`), when that file and the installation are root's alone to change (`FileSystem.isRootsAlone`):
    /// an installation on a disk or in a folder the limited user may write is theirs, whatever it is called.
    static func systemInstallations(configuredIn folder: String = installationsFolder) -> [String] {
        var installations = [defaultInstallation]
        for file in (FileSystem.list(folder) ?? []).sorted() where file.hasSuffix(".conf") {
            let path = folder + "/" + file
            guard FileSystem.isRootsAlone(path), let text = FileSystem.readText(path) else { continue }
            var inInstallation = false
            for line in text.split(separator: "\n") {
                if line.hasPrefix("[") {
                    inInstallation = line.hasPrefix("[Installation ")
                } else if inInstallation, line.hasPrefix("Path=") {
                    let installation = String(line.dropFirst(5).drop { $0 == " " })
                    if FileSystem.isRootsAlone(installation) { installations.append(installation) }
                }
            }
        }
        return installations
    }

    init(info: String) {
        var section = ""
        for line in info.split(separator: "\n") {
            if line.hasPrefix("[") {
                section = String(line)
                continue
            }
            guard let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals]
            let value = String(line[line.index(after: equals)...])
            switch (section, key) {
            case ("[Application]", "name"): name = value.isEmpty ? nil : value
            case ("[Instance]", "app-path"): appPath = value
            case ("[Instance]", "runtime-path"): runtimePath = value
            default: break
            }
        }
    }

    /// Whether the sandboxed process runs a system installation of the app `name`, on a system runtime: `app-path` is
    /// (after links) a folder of `INSTALLATION/app/NAME/` and is the sandbox's `/app`, `runtime-path` one of
    /// `INSTALLATION/runtime/` and is the sandbox's `/usr` (no loader or library of the user's own), each in one of
    /// `installations` (`systemInstallations(configuredIn:)`), and what the
    /// process runs is the installation's own file: its `executable` (the sandbox's path, `/app/bin/…`) is the very
    /// file (device and inode) under `app-path`, and a `script` it runs (an interpreter of the app's or, only then,
    /// of the runtime) is the very file there too. Paths inside the sandbox are resolved in its root
    /// (`processRoot`, `/proc/PID/root`), where its own links lead; `processExecutable` is `/proc/PID/exe`.
    func runsSystemInstallation(
        executable: String, script: String?, processRoot: String, processExecutable: String,
        installations: [String] = systemInstallations()
    ) -> Bool {
        func inInstallation(_ path: String, under folder: String) -> Bool {
            installations.contains { FileSystem.realPath($0 + folder).map { path.hasPrefix($0 + "/") } ?? false }
        }
        guard let name, !name.contains("/"), let appPath = appPath.flatMap(FileSystem.realPath),
            inInstallation(appPath, under: "/app/" + name),
            let runtimePath = runtimePath.flatMap(FileSystem.realPath), inInstallation(runtimePath, under: "/runtime"),
            FileSystem.sameFile(FileSystem.status("/app", inRoot: processRoot), FileSystem.status(appPath)),
            FileSystem.sameFile(FileSystem.status("/usr", inRoot: processRoot), FileSystem.status(runtimePath)),
            let running = FileSystem.status(processExecutable)
        else { return false }
        // The installation's files are looked up in its own folder as the sandbox sees them: a link in it leads
        // within the app (or the runtime), not into the host.
        let executableInApp = Self.relative(executable, to: "/app")
        if let inApp = executableInApp {
            guard FileSystem.sameFile(running, FileSystem.status(inApp, inRoot: appPath)) else { return false }
        } else {
            guard let inRuntime = Self.relative(executable, to: "/usr"),
                FileSystem.sameFile(running, FileSystem.status(inRuntime, inRoot: runtimePath))
            else { return false }
        }
        // An interpreter (the app's or the runtime's) or the dynamic loader runs anything: only a script of the app.
        let runsAnything =
            ProgramResolver.isInterpreter(baseName(executable)) || AppResolver.isDynamicLoader(baseName(executable))
            || executableInApp == nil
        guard let script else { return !runsAnything }
        guard let inApp = Self.relative(script, to: "/app") else { return false }
        return FileSystem.sameFile(
            FileSystem.status(script, inRoot: processRoot), FileSystem.status(inApp, inRoot: appPath))
    }

    /// `path` without the folder `folder` it lies in (`/bin/game` for `/app/bin/game`); nil when it lies elsewhere
    /// or climbs out (`..`).
    static func relative(_ path: String, to folder: String) -> String? {
        guard path.hasPrefix(folder + "/"), !path.split(separator: "/").contains("..") else { return nil }
        return String(path.dropFirst(folder.count))
    }
}

extension AppResolver {
    /// Whether `name` is the dynamic loader's (`ld-linux-x86-64.so.2`, `ld-linux-aarch64.so.1`, `ld.so`), which runs
    /// any program given to it as an argument.
    static func isDynamicLoader(_ name: String) -> Bool {
        name == "ld.so" || (name.hasPrefix("ld-linux") && name.contains(".so"))
    }

    /// The program a process run through the dynamic loader runs, as the process maps it (`/proc/PID/maps`): the
    /// loader's program argument when that file is mapped (`ld.so [--option …] PROGRAM`), else the last file mapped
    /// below the loader (it maps the program first, top-down, libraries and data files below). Nil when the maps
    /// can't be read or the loader has mapped nothing yet: read between its `exec` and its mapping of the program
    /// (which a program on a slow file system can make last), the process is the loader until it has.
    func loadedProgram(of entry: ProcessEntry, loader: String) -> MappedFile? {
        guard let maps = FileSystem.readBytes(entry.folder(in: procRoot) + "/maps") else { return nil }
        let loaderPath = FileSystem.realPath(loader) ?? loader
        var mapped: [MappedFile] = []
        var belowLoader: MappedFile?
        for line in maps.split(separator: UInt8(ascii: "\n")) {
            guard let file = MappedFile(parsing: line) else { continue }
            if file.path == loader || file.path == loaderPath {
                if belowLoader == nil { belowLoader = mapped.last }
                continue
            }
            if !file.path.hasPrefix("/memfd:") { mapped.append(file) }
        }
        var arguments = entry.arguments.dropFirst()
        while let argument = arguments.first, argument.hasPrefix("--") {
            arguments.removeFirst()
            if Self.loaderOptionsWithValue.contains(argument) { arguments = arguments.dropFirst() }
        }
        if let named = arguments.first {
            let path =
                named.hasPrefix("/")
                ? named : (FileSystem.readLink(entry.folder(in: procRoot) + "/cwd") ?? "") + "/" + named
            let real = FileSystem.realPath(path) ?? path
            if let file = mapped.first(where: { $0.path == real }) { return file }
        }
        return belowLoader
    }

    /// The loader's options that take a value (`ld.so --help`).
    static let loaderOptionsWithValue: Set<String> = [
        "--library-path", "--preload", "--audit", "--argv0", "--glibc-hwcaps-prepend", "--glibc-hwcaps-mask",
    ]
}

/// A file a process maps (a line of `/proc/PID/maps` with a path): where, and its path when it was mapped (without
/// the ` (deleted)` of a file removed since).
struct MappedFile: Equatable {
    var start: UInt64
    var end: UInt64
    var path: String

    /// The file's entry in `/proc/PID/map_files`, which opens the very file mapped (renamed, replaced or deleted
    /// since), for a reader with `CAP_CHECKPOINT_RESTORE` or `CAP_SYS_ADMIN`.
    var mapFilesName: String { String(start, radix: 16) + "-" + String(end, radix: 16) }

    /// Parses `START-END PERMS OFFSET MAJOR:MINOR INODE PATH`; nil for an anonymous mapping or another line.
    init?(parsing line: ArraySlice<UInt8>) {
        // The path starts at the first `/` after the five fields; the fields hold none.
        guard let slash = line.firstIndex(of: UInt8(ascii: "/")) else { return nil }
        let fields = line[..<slash].split(separator: UInt8(ascii: " "))
        guard fields.count == 5, let dash = fields[0].firstIndex(of: UInt8(ascii: "-")),
            let start = UInt64(String(decoding: fields[0][..<dash], as: UTF8.self), radix: 16),
            let end = UInt64(String(decoding: fields[0][(dash + 1)...], as: UTF8.self), radix: 16)
        else { return nil }
        self.start = start
        self.end = end
        path = String(decoding: line[slash...], as: UTF8.self)
        if path.hasSuffix(Self.deleted) { path.removeLast(Self.deleted.count) }
    }

    private static let deleted = " (deleted)"
}
