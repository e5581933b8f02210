import Glibc
import ScreenTimeModel
import SystemPackage

/// Tells, cheaply and often, whether a process held by `SIGSTOP` has run since it was last looked at: the first field
/// of `/proc/PID/schedstat` (the nanoseconds its main thread has spent on a CPU) grows only while it runs. The file
/// is kept open and read with `pread(2)`, one system call per process and check, and `schedstat` is one of the
/// cheapest files of `/proc` for the kernel to produce (`stat` adds up every thread's counters). An open file belongs
/// to its process: once that one has exited, reading fails, even if the pid was reused.
///
/// A `SIGCONT` wakes every thread of the process, the main thread among them, so a resumed process is never missed.
/// A process whose main thread has exited while others run on (`pthread_exit` in `main`: the main thread's state is
/// `Z` and its run time stands still) is watched through a thread that runs.
/// Stopping a process makes it run briefly (it takes the signal), so after each stop the next look takes a new
/// baseline, confirmed by the state letter of `stat`, instead of counting that as a resume.
final class RunTimeWatch {
    private struct Watched {
        var descriptor: FileDescriptor
        var runTime: UInt64
    }

    private let procRoot: FilePath
    private var watched: [ProcessIdentity: Watched] = [:]
    private var buffer = [UInt8](repeating: 0, count: 128)

    init(procRoot: FilePath = "/proc") {
        self.procRoot = procRoot
    }

    deinit {
        for entry in watched.values { try? entry.descriptor.close() }
    }

    /// Whether `process` runs or ran since the last look; false once it is gone. A process seen for the first time
    /// (or again after `rebaseline`) counts as running only when its state is neither stopped nor uninterruptible
    /// sleep (`D`): a process in `D` (reading a slow disk, a vfork parent) takes a `SIGSTOP` only when it wakes, which
    /// is not a resume; its run time is watched from then on.
    func hasRun(_ process: ProcessIdentity) -> Bool {
        if var entry = watched[process] {
            guard let runTime = runTime(entry.descriptor) else {
                forget(process)
                return false
            }
            guard runTime != entry.runTime else { return false }
            entry.runTime = runTime
            watched[process] = entry
            return true
        }
        guard var status = ProcessStatus.read(process.pid, procRoot: procRoot), status.startTime == process.startTime
        else { return false }
        var folder = procRoot.appending("\(process.pid.rawValue)")
        if status.state == "Z", let thread = runningThread(of: process.pid),
            let threadStatus = ProcessStatus.read(folder.appending("task/\(thread)/stat"))
        {
            folder = folder.appending("task/\(thread)")
            status = threadStatus
        }
        let path = folder.appending("schedstat")
        if let descriptor = try? FileDescriptor.open(path, .readOnly, options: .closeOnExec) {
            if let runTime = runTime(descriptor) {
                watched[process] = Watched(descriptor: descriptor, runTime: runTime)
            } else {
                try? descriptor.close()
            }
        }
        return !"TtZXD".contains(status.state)
    }

    /// The next look at `process` takes a new baseline (it has just been stopped again).
    func rebaseline(_ process: ProcessIdentity) {
        forget(process)
    }

    /// Closes the files of processes no longer held.
    func keep(only processes: [ProcessIdentity]) {
        guard watched.count > processes.count || !watched.keys.allSatisfy(processes.contains) else { return }
        let kept = Set(processes)
        for process in watched.keys where !kept.contains(process) { forget(process) }
    }

    private func forget(_ process: ProcessIdentity) {
        if let entry = watched.removeValue(forKey: process) { try? entry.descriptor.close() }
    }

    /// A thread of `pid` other than its main thread, if one runs.
    private func runningThread(of pid: ProcessID) -> Int32? {
        guard let directory = opendir(procRoot.appending("\(pid.rawValue)/task").string) else { return nil }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if let thread = Int32(name), thread != pid.rawValue { return thread }
        }
        return nil
    }

    private func runTime(_ descriptor: FileDescriptor) -> UInt64? {
        let count = buffer.withUnsafeMutableBytes { pread(descriptor.rawValue, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        var value: UInt64 = 0
        for byte in buffer[..<count] {
            guard byte >= 0x30, byte <= 0x39 else { break }
            value = value &* 10 &+ UInt64(byte - 0x30)
        }
        return value
    }
}
