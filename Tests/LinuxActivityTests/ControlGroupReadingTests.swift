import Enforcement
import Foundation
import Glibc
import ScreenTimeModel
import Testing

@testable import LinuxActivity

/// The cgroups the process table reads for real processes, in two cgroups made for the test whose files differ in one
/// byte: a cgroup kept from an earlier read is never taken for another of the same length.
@Suite(.serialized) struct ControlGroupReadingOfRealProcesses {
    let processes = AppIdentityOfRealProcesses()
    /// Where cgroup2 is mounted (`/sys/fs/cgroup`, or `/sys/fs/cgroup/unified` on a hybrid system).
    static let mount = (try? Freezer.cgroup2MountPoint().string) ?? "/sys/fs/cgroup"

    /// Root with a writable cgroup2 mount; under CI=true it runs (and fails) without.
    static var canMakeCgroups: Bool { getuid() == 0 && access(mount + "/cgroup.procs", W_OK) == 0 }

    @Test(.enabled(if: canMakeCgroups || ProcessInfo.processInfo.environment["CI"] == "true"))
    func eachProcessGetsItsOwnCgroupAndAMoveIsReadAgain() throws {
        let names = ["a", "b"].map { "/screentime-test-cgroup-\($0)-\(getpid())" }
        for name in names { #expect(mkdir(Self.mount + name, 0o755) == 0, "mkdir \(name): \(errno)") }
        let pids = try [0, 1, 0].map { _ in try processes.spawn(["/bin/sleep", "600"]) }
        defer {
            processes.stop(pids)
            for name in names { _ = eventually { rmdir(Self.mount + name) == 0 } }
        }
        func move(_ pid: pid_t, to name: String) throws {
            try "\(pid)".write(toFile: Self.mount + name + "/cgroup.procs", atomically: false, encoding: .utf8)
        }
        for (pid, group) in zip(pids, [0, 1, 0]) { try move(pid, to: names[group]) }

        let table = ProcessTable()
        table.useProcessEvents = false
        table.probesAllocatedPIDs = false
        table.refresh()
        #expect(pids.map { table.entries[ProcessID($0)]?.controlGroup?.path } == [names[0], names[1], names[0]])

        try move(pids[0], to: names[1])
        #expect(table.rereadControlGroup(of: ProcessID(pids[0])))
        #expect(table.entries[ProcessID(pids[0])]?.controlGroup?.path == names[1])
        #expect(!table.rereadControlGroup(of: ProcessID(pids[0])))
        #expect(table.entries[ProcessID(pids[2])]?.controlGroup?.path == names[0])
    }

    /// Moved as a shield moves it, a process whose main thread has exited (after the table read it) is where its
    /// running thread went (the exited one stays behind).
    @Test(.enabled(if: canMakeCgroups || ProcessInfo.processInfo.environment["CI"] == "true"))
    func aProcessWhoseMainThreadExitedIsWhereItsRunningThreadIs() throws {
        let name = "/screentime-test-cgroup-leaderless-\(getpid())"
        #expect(mkdir(Self.mount + name, 0o755) == 0, "mkdir \(name): \(errno)")
        let directory = "/tmp/st-leaderless-cgroup-\(getpid())"
        defer { _ = try? removeTree(directory) }
        let pid = try processes.spawn([try processes.leaderlessProgram(in: directory), "500000"])
        defer {
            processes.stop([pid])
            _ = eventually { rmdir(Self.mount + name) == 0 }
        }
        let table = ProcessTable()
        table.useProcessEvents = false
        table.probesAllocatedPIDs = false
        #expect(eventually { table.refresh().added.contains(ProcessID(pid)) })
        #expect(table.entries[ProcessID(pid)]?.stat.state != "Z", "read after its main thread exited")
        #expect(eventually { FileSystem.readText("/proc/\(pid)/stat")?.contains(") Z ") == true })
        let before = table.entries[ProcessID(pid)]?.controlGroup?.path
        #expect(before != nil && before != name)
        try "\(pid)".write(toFile: Self.mount + name + "/cgroup.procs", atomically: false, encoding: .utf8)
        #expect(table.rereadControlGroup(of: ProcessID(pid)))
        #expect(table.entries[ProcessID(pid)]?.controlGroup?.path == name)
        let fresh = ProcessTable()
        fresh.useProcessEvents = false
        fresh.probesAllocatedPIDs = false
        fresh.refresh()
        #expect(fresh.entries[ProcessID(pid)]?.controlGroup?.path == name)
    }
}
