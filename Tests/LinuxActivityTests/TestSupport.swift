import Glibc

/// Writes a file, creating its directories.
func writeFile(_ path: String, _ text: String) throws {
    var prefix = ""
    for component in path.split(separator: "/").dropLast() {
        prefix += "/" + component
        mkdir(prefix, 0o755)
    }
    guard let file = fopen(path, "w") else { throw TestError("cannot write \(path)") }
    fputs(text, file)
    fclose(file)
}

/// Removes a directory tree (`rm -rf`), used by tests to clean up what they created.
func removeTree(_ path: String) throws {
    var pid: pid_t = 0
    var argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/rm"), strdup("-rf"), strdup(path), nil]
    defer { for pointer in argv { free(pointer) } }
    guard posix_spawn(&pid, "/bin/rm", nil, nil, &argv, environ) == 0 else { throw TestError("cannot run rm") }
    var status: Int32 = 0
    waitpid(pid, &status, 0)
}

struct TestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Polls `condition` every 100 ms for up to 5 s; whether it came to hold.
func eventually(_ condition: () -> Bool) -> Bool {
    for _ in 0..<50 {
        if condition() { return true }
        usleep(100_000)
    }
    return false
}
