import Glibc

/// The desktop entries visible to one user, indexed for identifying processes and windows.
///
/// Directories are searched as the specification orders them: `$XDG_DATA_HOME/applications` (default
/// `~/.local/share/applications`) first, then each `$XDG_DATA_DIRS/applications` (default `/usr/local/share:/usr/share`).
/// The first file with a given id wins; a `Hidden=true` file hides the id in later directories.
public struct DesktopEntryIndex: Sendable {
    /// Visible entries by id (`Hidden` ones removed; `NoDisplay` ones kept, they still name apps).
    public private(set) var entries: [String: DesktopEntry] = [:]
    /// The data directories the entries were read from (none for an index of given entries).
    public private(set) var dataDirectories: [String] = []
    private var byExecutable: [String: String] = [:]
    private var byWindowClass: [String: String] = [:]

    /// The data directories searched for a user with this home (nil: none of theirs is searched) and environment.
    public static func dataDirectories(home: String?, environment: [String: String]) -> [String] {
        let dataHome =
            environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home.map { $0 + "/.local/share" }
        var directories = dataHome.map { [$0] } ?? []
        directories += absoluteFolders(of: environment["XDG_DATA_DIRS"] ?? "")
        // Flatpak's (the user's installations, then the system's) and Snap's, which their packages add to the
        // session's XDG_DATA_DIRS: also when the daemon started before the session set it, or without them.
        let flatpak = (dataHome.map { [$0 + "/flatpak/exports/share"] } ?? []) + ["/var/lib/flatpak/exports/share"]
        for extra in flatpak + ["/var/lib/snapd/desktop"] where !directories.contains(extra) {
            directories.append(extra)
        }
        return directories
    }

    /// The absolute folders of an `XDG_DATA_DIRS` value, in order, without a trailing slash
    /// (`/usr/local/share:/usr/share` when it is empty); relative ones are ignored, as the specification says.
    public static func absoluteFolders(of dataDirs: String) -> [String] {
        (dataDirs.isEmpty ? "/usr/local/share:/usr/share" : dataDirs).split(separator: ":").compactMap { folder in
            guard folder.hasPrefix("/") else { return nil }
            var trimmed = folder
            while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
            return String(trimmed)
        }
    }

    /// An `XDG_DATA_DIRS` value with `sessionFolders` first (what a user's desktop sessions name), then the folders of
    /// `dataDirs` (default `/usr/local/share:/usr/share`), each once.
    public static func dataDirs(sessionFolders: [String], then dataDirs: String?) -> String {
        var seen: Set<String> = []
        return (sessionFolders + absoluteFolders(of: dataDirs ?? "")).filter { seen.insert($0).inserted }
            .joined(separator: ":")
    }

    /// Reads every `*.desktop` below `DIR/applications` of each directory. With `nameLocaleKeys`
    /// (`DesktopEntry.localeKeys(_:)` of a locale), an entry keeps only the names that locale reads instead of one per
    /// translation: a desktop's few hundred entries name themselves in some 60 languages each.
    public init(dataDirectories: [String], nameLocaleKeys: Set<String>? = nil) {
        self.dataDirectories = dataDirectories
        var seen: Set<String> = []
        for directory in dataDirectories {
            var files: [(id: String, path: String)] = []
            var visited: Set<FileSystem.DirectoryIdentity> = []
            Self.collect(directory + "/applications", prefix: "", visited: &visited, into: &files)
            for file in files where !seen.contains(file.id) {
                seen.insert(file.id)
                guard let text = FileSystem.readText(file.path),
                    let entry = DesktopEntry(id: file.id, parsing: text, nameLocaleKeys: nameLocaleKeys), !entry.hidden,
                    entry.type == "Application"
                else { continue }
                add(entry)
            }
        }
    }

    /// An index of the given entries (for tests and for callers that parsed entries themselves).
    public init(entries: [DesktopEntry]) {
        for entry in entries where !entry.hidden { add(entry) }
    }

    private mutating func add(_ entry: DesktopEntry) {
        entries[entry.id] = entry
        for key in Self.executableKeys(of: entry) where byExecutable[key] == nil { byExecutable[key] = entry.id }
        if let windowClass = entry.startupWMClass { byWindowClass[windowClass.lowercased()] = entry.id }
        byWindowClass[entry.id.lowercased()] = byWindowClass[entry.id.lowercased()] ?? entry.id
        if let last = entry.id.split(separator: ".").last.map({ $0.lowercased() }), byWindowClass[last] == nil {
            byWindowClass[last] = entry.id
        }
    }

    /// How deep below `applications` entries are looked for.
    static let folderDepthLimit = 8

    /// Adds the entries below `path` to `files`, each folder once (links can lead back to one: `a -> .`), at most
    /// `folderDepthLimit` folders deep.
    private static func collect(
        _ path: String, prefix: String, depth: Int = 0, visited: inout Set<FileSystem.DirectoryIdentity>,
        into files: inout [(id: String, path: String)]
    ) {
        guard depth <= folderDepthLimit, let folder = FileSystem.directoryIdentity(path),
            visited.insert(folder).inserted, let names = FileSystem.list(path)
        else { return }
        for name in names.sorted() {
            let full = path + "/" + name
            if name.hasSuffix(".desktop") {
                files.append((prefix + String(name.dropLast(8)), full))
            } else {
                collect(full, prefix: prefix + name + "-", depth: depth + 1, visited: &visited, into: &files)
            }
        }
    }

    /// The keys under which an entry's program is found: the resolved absolute path and the file name of `TryExec`
    /// and of `Exec`'s program, or of the script when the program is an interpreter. An interpreter given code
    /// rather than a script (`sh -c "…"`) names no program: the shell every terminal runs is not the entry's.
    static func executableKeys(of entry: DesktopEntry) -> [String] {
        var programs: [String] = []
        let command = ProgramResolver.effectiveCommand(entry.exec)
        if let program = command.first {
            if !ProgramResolver.isInterpreter(baseName(program)) {
                programs.append(program)
            } else if let script = ProgramResolver.script(arguments: command) {
                programs.append(script)
            }
        }
        if let tryExec = entry.tryExec { programs.append(tryExec) }
        var keys: [String] = []
        for program in programs {
            if program.hasPrefix("/") {
                keys.append(FileSystem.realPath(program) ?? program)
            } else if let resolved = resolveInPath(program) {
                keys.append(resolved)
            }
            keys.append(baseName(program))
        }
        return keys
    }

    public static func resolveInPath(_ program: String) -> String? {
        for directory in ["/usr/local/bin", "/usr/bin", "/bin", "/usr/games", "/usr/local/games", "/usr/sbin"] {
            let candidate = directory + "/" + program
            if access(candidate, X_OK) == 0 { return FileSystem.realPath(candidate) ?? candidate }
        }
        return nil
    }

    /// Whether `name` is an entry's id or the file name of an entry's program.
    public func names(_ name: String) -> Bool {
        entries[name] != nil || byExecutable[name] != nil
    }

    /// The entry whose program is this absolute path (resolved), not one of the same file name elsewhere.
    public func entry(forExactExecutable path: String) -> DesktopEntry? {
        byExecutable[path].flatMap { entries[$0] }
    }

    /// The entry whose program is this absolute path (resolved), or failing that whose program has this file name.
    public func entry(forExecutable path: String) -> DesktopEntry? {
        if let id = byExecutable[path] { return entries[id] }
        if let id = byExecutable[baseName(path)] { return entries[id] }
        return nil
    }

    /// The entry for an X11 `WM_CLASS` or a Wayland `app_id`: by `StartupWMClass`, by id, or by the id's last
    /// component (`org.gnome.Calculator` for class `gnome-calculator` only through `StartupWMClass`), case-insensitive.
    public func entry(forWindowClass windowClass: String) -> DesktopEntry? {
        let key = windowClass.lowercased()
        if let id = byWindowClass[key] { return entries[id] }
        if key.hasSuffix(".desktop"), let id = byWindowClass[String(key.dropLast(8))] { return entries[id] }
        return nil
    }
}
