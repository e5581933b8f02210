import Foundation
import Glibc
import ScreenTimeModel
import Testing

@testable import LinuxActivity

/// A process whose main thread has exited while another runs on (`pthread_exit` in `main`, which a library preloaded
/// into any program can do): its own `/proc/PID/exe` and `cmdline` read as nothing, and the kernel reports the main
/// thread's exit as the process's. It is still its program, and gone only once its last thread is.
extension AppIdentityOfRealProcesses {
    /// Builds `Tests/Fixtures/leaderless.c` (gcc) as `directory/supertuxkart`.
    func leaderlessProgram(in directory: String) throws -> String {
        try writeFile("\(directory)/.keep", "")
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../Fixtures/leaderless.c").standardized.path
        let program = "\(directory)/supertuxkart"
        try #require(try run(["/usr/bin/gcc", "-O1", "-pthread", "-o", program, source]), "gcc failed")
        return program
    }

    /// Whether the main thread of `pid` exits (its state turns `Z`) within 5 s.
    func mainThreadExits(_ pid: pid_t) -> Bool {
        for _ in 0..<250 {
            let stat = FileSystem.readText("/proc/\(pid)/stat").flatMap { ProcessStat(parsing: Array($0.utf8)) }
            if stat?.state == "Z" { return true }
            usleep(20_000)
        }
        return false
    }

    @Test func aProcessWhoseMainThreadExitedIsStillItsProgramUntilItsLastThreadEnds() throws {
        let directory = "/tmp/st-leaderless-\(getpid())"
        defer { _ = try? removeTree(directory) }
        let program = try leaderlessProgram(in: directory)
        // With the kernel's process events where it gives them (as root), by listing /proc otherwise.
        let table = ProcessTable()
        table.refresh()
        let pid = try spawn([program])
        var running = true
        defer { if running { stop([pid]) } }
        for _ in 0..<50 where table.entries[ProcessID(pid)] == nil {
            usleep(20_000)
            table.refresh()
        }
        #expect(table.entries[ProcessID(pid)]?.executable == program)
        try #require(mainThreadExits(pid), "the main thread did not exit")
        for _ in 0..<5 {
            table.refresh()
            usleep(20_000)
        }
        #expect(table.entries[ProcessID(pid)]?.executable == program, "forgotten at its main thread's exit")
        #expect(table.verify(ProcessID(pid))?.executable == program)
        // Read for the first time now: by a thread that runs.
        let fresh = ProcessTable()
        fresh.useProcessEvents = false
        fresh.probesAllocatedPIDs = false
        fresh.refresh()
        let entry = try #require(fresh.entries[ProcessID(pid)])
        #expect(entry.executable == program)
        #expect(
            AppResolver().resolve(entry, parent: nil, desktopEntries: DesktopEntryIndex(entries: []))
                == ResolvedApp(id: AppID("supertuxkart"), source: .executable))
        #expect(AppResolver().runsUsersOwnProgram(entry))
        // Its last thread ended (and the process reaped), it is gone from both.
        stop([pid])
        running = false
        var forgotten = false
        for _ in 0..<50 where !forgotten {
            usleep(20_000)
            table.refresh()
            fresh.refresh()
            forgotten = table.entries[ProcessID(pid)] == nil && fresh.entries[ProcessID(pid)] == nil
        }
        #expect(forgotten)
        // One of another user whose main thread exits at once, before a refresh has read it: its fork, exec and that
        // exit come to the table together, and its files of /proc are root's.
        let atOnce = try spawn(["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", program, "0"])
        defer { stop([atOnce]) }
        for _ in 0..<50 where table.entries[ProcessID(atOnce)]?.executable != program {
            usleep(20_000)
            table.refresh()
        }
        #expect(table.entries[ProcessID(atOnce)]?.executable == program, "never read")
        #expect(table.entries[ProcessID(atOnce)]?.user == UserID(65534))
    }

    /// A thread may end between the listing of a process's threads and the read of its program; another is read.
    /// (The moment can't be made on demand: a copy of /proc whose first threads have no program stands for it.)
    @Test func aThreadThatEndedSinceItWasListedIsPassedOverForOneThatRuns() throws {
        let root = "/tmp/st-leaderless-threads-\(getpid())"
        defer { _ = try? removeTree(root) }
        // One thread runs, fifty have ended: in whatever order the folder lists them, one that ended almost surely
        // comes first (made last, where a folder lists its newest entries first).
        try writeFile("\(root)/100/task/151/stat", "")
        #expect(symlink("/usr/games/supertuxkart", "\(root)/100/task/151/exe") == 0)
        for thread in 100...150 { try writeFile("\(root)/100/task/\(thread)/stat", "") }
        let program = ProcessTable.program(procRoot: root, pid: ProcessID(100))
        #expect(program?.executable == "/usr/games/supertuxkart")
        #expect(program?.thread == 151)
    }

    /// Its environment is its threads': a monitor extension whose main thread has exited still shows the token it
    /// was started with, and a session's process its display.
    @Test func aProcessWhoseMainThreadExitedIsReadForItsEnvironmentThroughAThreadThatRuns() throws {
        let directory = "/tmp/st-leaderless-environment-\(getpid())"
        defer { _ = try? removeTree(directory) }
        let program = try leaderlessProgram(in: directory)
        let pid = try spawn([program, "0"], environment: ["SCREENTIME_EXTENSION_TOKEN=0123abcd", "DISPLAY=:7"])
        defer { stop([pid]) }
        try #require(mainThreadExits(pid), "the main thread did not exit")
        #expect(FileSystem.readBytes("/proc/\(pid)/environ") == nil, "its own environ reads: nothing to test")
        #expect(ProcessEnvironment.read(pid: ProcessID(pid))?["DISPLAY"] == ":7")
        let caller = try #require(
            CallerProcess(BusCredentials(user: UserID(getuid()), process: ProcessID(rawValue: pid))))
        #expect(caller.initialEnvironmentValue("SCREENTIME_EXTENSION_TOKEN") == "0123abcd")
        #expect(caller.initialEnvironmentValue("HOME") == nil)
    }

    /// A process may make itself not dumpable (`prctl(PR_SET_DUMPABLE, 0)`), which makes its files of /proc root's:
    /// it is still its user's.
    @Test func aProcessThatMadeItselfNotDumpableIsStillItsUsers() throws {
        let directory = "/tmp/st-undumpable-\(getpid())"
        defer { _ = try? removeTree(directory) }
        try writeFile(
            "\(directory)/game.py",
            "import ctypes, time\nctypes.CDLL(None).prctl(4, 0, 0, 0, 0)\nopen('\(directory)/ready', 'w')\ntime.sleep(600)\n"
        )
        _ = chmod(directory, 0o777)
        let pid = try spawn([
            "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3",
            "\(directory)/game.py",
        ])
        defer { stop([pid]) }
        var ready = false
        for _ in 0..<250 where !ready {
            usleep(20_000)
            ready = FileManager.default.fileExists(atPath: "\(directory)/ready")
        }
        try #require(ready, "the program did not start")
        #expect(FileSystem.status("/proc/\(pid)/stat")?.st_uid == 0, "its files are not root's: nothing to test")
        let table = ProcessTable()
        table.useProcessEvents = false
        table.probesAllocatedPIDs = false
        table.refresh()
        #expect(table.entries[ProcessID(pid)]?.user == UserID(65534))
    }
}
