import Glibc
import Testing

@testable import ScreenTimeDaemon

@Suite struct FileWatchTests {
    @Test("a watched folder removed and made anew is watched again, and its files are reported")
    func aFolderMadeAnewIsWatchedAgain() throws {
        let directory = "/tmp/st-filewatch-anew-\(getpid())"
        let users = directory + "/users/"
        let policy = directory + "/policy.toml"
        mkdir(directory, 0o755)
        mkdir(users, 0o755)
        defer {
            unlink(policy)
            unlink(users + "alice.toml")
            rmdir(users)
            rmdir(directory)
        }
        let watch = try FileWatch(paths: [policy, users])
        #expect(watch.unwatched.isEmpty)
        // Removed (a configuration tool replacing the folder): reported, and no longer watched.
        rmdir(users)
        #expect(watch.changes() == [users])
        #expect(watch.unwatched == [users])
        #expect(watch.rewatch().isEmpty)
        mkdir(users, 0o755)
        try write("[[limit]]", to: users + "alice.toml")
        #expect(watch.rewatch() == [users])
        #expect(watch.unwatched.isEmpty)
        // Edits in the new folder are seen.
        _ = watch.changes()
        try write("[[downtime]]", to: users + "alice.toml")
        #expect(watch.changes() == [users])
        try write("a", to: policy)
        #expect(watch.changes() == [policy])
    }

    @Test("edits, replacements and removals of a watched file are reported; other files and quiet times are not")
    func reportsChangesOfWatchedFiles() throws {
        let directory = "/tmp/st-filewatch-\(getpid())"
        mkdir(directory, 0o755)
        defer {
            for name in ["policy.toml", "other", "policy.toml.new"] { unlink("\(directory)/\(name)") }
            rmdir(directory)
        }
        let policy = "\(directory)/policy.toml"
        try write("a", to: policy)
        let watch = try FileWatch(paths: [policy, "/nonexistent-\(getpid())/file"])
        #expect(watch.unwatched == ["/nonexistent-\(getpid())/file"])
        #expect(watch.changes().isEmpty)

        try write("b", to: policy)
        #expect(watch.changes() == [policy])
        #expect(watch.changes().isEmpty)

        try write("c", to: "\(directory)/other")
        #expect(watch.changes().isEmpty)

        // Replaced by a rename, as editors save.
        try write("d", to: "\(directory)/policy.toml.new")
        rename("\(directory)/policy.toml.new", policy)
        #expect(watch.changes() == [policy])

        unlink(policy)
        #expect(watch.changes() == [policy])

        // Created anew (an editor that removes and creates): reported once written, not while still empty.
        let created = open(policy, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        #expect(created >= 0)
        #expect(watch.changes().isEmpty)
        _ = "e".withCString { Glibc.write(created, $0, 1) }
        close(created)
        #expect(watch.changes() == [policy])
    }

    @Test("a folder written with a final / reports any file added, changed or removed in it")
    func reportsChangesInAWatchedFolder() throws {
        let directory = "/tmp/st-filewatch-folder-\(getpid())"
        mkdir(directory, 0o755)
        defer {
            for name in ["alice.toml", "bob.toml"] { unlink("\(directory)/\(name)") }
            rmdir(directory)
        }
        let watch = try FileWatch(paths: [directory + "/", "/nonexistent-\(getpid())/"])
        #expect(watch.unwatched == ["/nonexistent-\(getpid())/"])
        #expect(watch.changes().isEmpty)
        try write("a", to: "\(directory)/alice.toml")
        #expect(watch.changes() == [directory + "/"])
        #expect(watch.changes().isEmpty)
        try write("b", to: "\(directory)/bob.toml")
        unlink("\(directory)/alice.toml")
        #expect(watch.changes() == [directory + "/"])
    }

    private func write(_ text: String, to path: String) throws {
        guard let file = fopen(path, "w") else { throw Errno(errno) }
        fputs(text, file)
        fclose(file)
    }

    private struct Errno: Error {
        let code: Int32
        init(_ code: Int32) { self.code = code }
    }
}
