import Foundation
import Glibc
import ScreenTimeModel
import Testing

@testable import LinuxActivity

/// Without proc connector events, a refresh reads the pids allocated since the last one (`/proc/loadavg`) instead of
/// listing `/proc`: real processes and threads on this machine.
@Suite(.serialized) struct PIDProbeOfRealProcesses {
    let processes = AppIdentityOfRealProcesses()

    /// A table that probes, after its first (listing) refresh.
    func probingTable(rescanInterval: Int = 1_000) -> ProcessTable {
        let table = ProcessTable()
        table.useProcessEvents = false
        table.probeRescanInterval = rescanInterval
        table.refresh()
        return table
    }

    /// Refreshes `table` every 20 ms until a refresh adds `pid`, at most `tries` times; whether one did.
    func refreshes(_ table: ProcessTable, untilItAdds pid: pid_t, tries: Int) -> Bool {
        for _ in 0..<tries {
            usleep(20_000)
            if table.refresh().added.contains(ProcessID(pid)) { return true }
        }
        return false
    }

    /// Waits, 20 ms at a time and at most `tries` times, until process `pid` runs `program`.
    func waitUntil(_ pid: pid_t, runs program: String, tries: Int) {
        for _ in 0..<tries
        where (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) != program {
            usleep(20_000)
        }
    }

    @Test func aNewProcessIsFoundByItsPidWithoutListingProc() throws {
        let table = probingTable()
        let listings = table.listingCount
        let pid = try processes.spawn(["/bin/sleep", "600"])
        defer { processes.stop([pid]) }
        #expect(refreshes(table, untilItAdds: pid, tries: 50))
        #expect(table.entries[ProcessID(pid)]?.executable == "/usr/bin/sleep")
        #expect(table.listingCount == listings)
    }

    @Test func aThreadIsNotTakenForAProcess() throws {
        let table = probingTable()
        let listings = table.listingCount
        let thread = SleepingThread()
        defer { thread.finish() }
        let tid = thread.start()
        // The thread's pid was allocated after the last refresh, and /proc/TID exists: the probe must pass it by.
        #expect(FileManager.default.fileExists(atPath: "/proc/\(tid)/stat"))
        table.refresh()
        #expect(table.entries[ProcessID(tid)] == nil)
        #expect(table.listingCount == listings)
    }

    @Test func aProcessReadBeforeItsExecIsReadAgainByTheNextRefresh() throws {
        let table = probingTable()
        let pid = try processes.spawn(["/bin/sh", "-c", "sleep 0.3; exec /bin/sleep 600"])
        defer { processes.stop([pid]) }
        #expect(refreshes(table, untilItAdds: pid, tries: 10))
        #expect(table.entries[ProcessID(pid)]?.executable != "/usr/bin/sleep")
        waitUntil(pid, runs: "/usr/bin/sleep", tries: 100)
        let changes = table.refresh()
        #expect(changes.removed.contains { $0.pid == ProcessID(pid) })
        #expect(changes.added.contains(ProcessID(pid)))
        #expect(table.entries[ProcessID(pid)]?.executable == "/usr/bin/sleep")
    }

    /// A program run later than a refresh after its process appeared (a launcher that waits before its `exec`) is
    /// noticed by the next listing of `/proc`.
    @Test func aProcessThatExecutesLaterIsReadAgainByTheNextListing() throws {
        // The shell under a name that is no interpreter's: a launcher of its own, compared only by listings.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("launcher-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let launcher = folder.appendingPathComponent("launcher").path
        try FileManager.default.copyItem(atPath: "/bin/dash", toPath: launcher)
        let table = probingTable(rescanInterval: 3)
        let pid = try processes.spawn([launcher, "-c", "sleep 1; exec /bin/sleep 600"])
        defer { processes.stop([pid]) }
        #expect(refreshes(table, untilItAdds: pid, tries: 10))
        table.refresh()  // the look one refresh later: still the shell
        #expect(table.entries[ProcessID(pid)]?.executable != "/usr/bin/sleep")
        waitUntil(pid, runs: "/usr/bin/sleep", tries: 150)
        var seen = false
        for _ in 0..<4 where !seen {
            table.refresh()
            seen = table.entries[ProcessID(pid)]?.executable == "/usr/bin/sleep"
        }
        #expect(seen)
    }

    @Test func aShellThatExecutesLaterIsReadAgainByTheNextRefresh() throws {
        let table = probingTable()
        let listings = table.listingCount
        let pid = try processes.spawn(["/bin/sh", "-c", "sleep 1; exec /bin/sleep 600"])
        defer { processes.stop([pid]) }
        #expect(refreshes(table, untilItAdds: pid, tries: 10))
        table.refresh()  // the look one refresh later: still the shell
        #expect(table.entries[ProcessID(pid)]?.executable != "/usr/bin/sleep")
        // Refreshed every 20 ms meanwhile, as a busy machine (other tests) may allocate more pids in a second than a
        // probe reads: then the table lists /proc, which is not what this test is about.
        for _ in 0..<150
        where (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) != "/usr/bin/sleep" {
            usleep(20_000)
            table.refresh()
        }
        table.refresh()
        #expect(table.entries[ProcessID(pid)]?.executable == "/usr/bin/sleep")
        #expect(table.listingCount == listings)
    }

    @Test func anExitedProcessLeavesAtTheNextListing() throws {
        let table = probingTable(rescanInterval: 4)
        let pid = try processes.spawn(["/bin/sleep", "600"])
        #expect(refreshes(table, untilItAdds: pid, tries: 50))
        table.refresh()  // no longer new: only a listing notices its exit
        processes.stop([pid])
        let listings = table.listingCount
        var removed = false
        for _ in 0..<3 where !removed { removed = table.refresh().removed.contains { $0.pid == ProcessID(pid) } }
        #expect(removed)
        #expect(table.listingCount == listings + 1)
    }
}

/// A thread of the test process that sleeps until `finish()`; `start()` returns its thread id.
final class SleepingThread: @unchecked Sendable {
    private let started = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private var tid: pid_t = 0

    func start() -> pid_t {
        let thread = Thread { [self] in
            // "/proc/thread-self" links to "PID/task/TID".
            let link = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? ""
            tid = pid_t(link.split(separator: "/").last ?? "") ?? 0
            started.signal()
            done.wait()
        }
        thread.start()
        started.wait()
        return tid
    }

    func finish() { done.signal() }
}
