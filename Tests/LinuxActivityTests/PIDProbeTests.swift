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

    @Test func aNewProcessIsFoundByItsPidWithoutListingProc() throws {
        let table = probingTable()
        let listings = table.listingCount
        let pid = try processes.spawn(["/bin/sleep", "600"])
        defer { processes.stop([pid]) }
        var found = false
        for _ in 0..<50 where !found {
            usleep(20_000)
            found = table.refresh().added.contains(ProcessID(pid))
        }
        #expect(found)
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
        var found = false
        for _ in 0..<10 where !found {
            usleep(20_000)
            found = table.refresh().added.contains(ProcessID(pid))
        }
        #expect(found)
        #expect(table.entries[ProcessID(pid)]?.executable != "/usr/bin/sleep")
        for _ in 0..<100 where (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) != "/usr/bin/sleep" {
            usleep(20_000)
        }
        let changes = table.refresh()
        #expect(changes.removed.contains { $0.pid == ProcessID(pid) })
        #expect(changes.added.contains(ProcessID(pid)))
        #expect(table.entries[ProcessID(pid)]?.executable == "/usr/bin/sleep")
    }

    /// A program run later than a refresh after its process appeared (a launcher that waits before its `exec`) is
    /// noticed by the next listing of `/proc`.
    @Test func aProcessThatExecutesLaterIsReadAgainByTheNextListing() throws {
        let table = probingTable(rescanInterval: 3)
        let pid = try processes.spawn(["/bin/sh", "-c", "sleep 1; exec /bin/sleep 600"])
        defer { processes.stop([pid]) }
        var found = false
        for _ in 0..<10 where !found {
            usleep(20_000)
            found = table.refresh().added.contains(ProcessID(pid))
        }
        #expect(found)
        table.refresh()  // the look one refresh later: still the shell
        #expect(table.entries[ProcessID(pid)]?.executable != "/usr/bin/sleep")
        let program = { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe") }
        for _ in 0..<150 where program() != "/usr/bin/sleep" { usleep(20_000) }
        var seen = false
        for _ in 0..<4 where !seen {
            table.refresh()
            seen = table.entries[ProcessID(pid)]?.executable == "/usr/bin/sleep"
        }
        #expect(seen)
    }

    @Test func anExitedProcessLeavesAtTheNextListing() throws {
        let table = probingTable(rescanInterval: 4)
        let pid = try processes.spawn(["/bin/sleep", "600"])
        var found = false
        for _ in 0..<50 where !found {
            usleep(20_000)
            found = table.refresh().added.contains(ProcessID(pid))
        }
        #expect(found)
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
