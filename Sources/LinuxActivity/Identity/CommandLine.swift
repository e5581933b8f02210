/// What a command line runs, seen through interpreters: `python3 game.py` runs `game.py`, `java -jar x.jar` runs
/// `x.jar`, `wine game.exe` runs `game.exe`, `sh script.sh` runs `script.sh`, `env A=1 prog` runs `prog`.
public enum ProgramResolver {
    /// Interpreters whose first non-option argument names the program really run.
    static let interpreters: Set<String> = [
        "python", "python2", "python3", "pypy", "pypy3", "perl", "ruby", "node", "nodejs", "lua", "php", "tclsh",
        "wish", "java", "mono", "wine", "wine64", "wine-preloader", "wine64-preloader", "sh", "bash", "dash", "zsh",
        "ksh", "fish", "gjs", "love", "godot",
    ]

    /// Options of interpreters that take a value, so that the value is not taken for the script.
    static let optionsWithValue: Set<String> = [
        "-c", "-m", "-W", "-X", "-e", "-I", "-r", "-cp", "-classpath", "--class-path", "-jar", "-o", "--require",
    ]

    /// Whether an executable's file name is an interpreter (versioned names like `python3.11` included).
    public static func isInterpreter(_ name: String) -> Bool {
        if interpreters.contains(name) { return true }
        let stem = name.prefix { !$0.isNumber && $0 != "." }
        return stem.count < name.count && interpreters.contains(String(stem))
    }

    /// The script or program an interpreter runs, from its argv (argv[0] included). Nil when the interpreter runs
    /// interactively or code from `-c`/`-e`, i.e. there is no file to name.
    public static func script(arguments: [String]) -> String? {
        guard arguments.count > 1 else { return nil }
        var index = 1
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "-jar" || argument == "-m" {
                return index + 1 < arguments.count ? arguments[index + 1] : nil
            }
            if argument == "-c" || argument == "-e" { return nil }
            if argument == "--" {
                return index + 1 < arguments.count ? arguments[index + 1] : nil
            }
            if argument.hasPrefix("-") {
                index += optionsWithValue.contains(argument) ? 2 : 1
                continue
            }
            return argument
        }
        return nil
    }

    /// Drops an `env` prefix (`env [-i] [NAME=VALUE]... prog args`) and `flatpak run ID` becomes `[ID]`.
    public static func effectiveCommand(_ arguments: [String]) -> [String] {
        var arguments = arguments[...]
        if let first = arguments.first, baseName(first) == "env" {
            arguments = arguments.dropFirst()
            while let next = arguments.first, next.hasPrefix("-") || next.contains("=") { arguments = arguments.dropFirst() }
        }
        if let first = arguments.first, baseName(first) == "flatpak", arguments.dropFirst().first == "run" {
            let rest = arguments.dropFirst(2).drop { $0.hasPrefix("-") }
            if let id = rest.first { return [id] }
        }
        return Array(arguments)
    }
}

/// The file name of a path (`/usr/bin/vim` → `vim`).
func baseName(_ path: some StringProtocol) -> String {
    if let slash = path.lastIndex(of: "/") { return String(path[path.index(after: slash)...]) }
    return String(path)
}
