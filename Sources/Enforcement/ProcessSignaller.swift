import Glibc
import ScreenTimeModel
import SystemPackage

/// What became of a signal sent to a process identity.
public enum SignalOutcome: Hashable, Sendable {
    /// The kernel delivered the signal to that very process.
    case delivered
    /// The process has exited (or its pid now belongs to another process); nothing was sent.
    case gone
}

/// Sends signals to processes by identity through pidfds, so that a reused pid is never signalled.
///
/// A pidfd is opened once per `ProcessIdentity` and kept until the process is gone or `forget(_:)` /
/// `retain(only:)` drops it. Right after `pidfd_open(2)` the process's start time is read from `/proc/PID/stat`:
/// if it differs from the identity's, the number was reused and the identity counts as gone. From then on the
/// pidfd refers to that process alone, whatever later takes its number.
///
/// Not `Sendable`: one owner (the enforcer's task or thread) holds it and its descriptors.
public final class ProcessSignaller {
    private var descriptors: [ProcessIdentity: FileDescriptor] = [:]
    private let procRoot: FilePath

    /// Creates a signaller that verifies start times under `procRoot` (tests may point it elsewhere).
    public init(procRoot: FilePath = "/proc") {
        self.procRoot = procRoot
    }

    deinit {
        for descriptor in descriptors.values { try? descriptor.close() }
    }

    /// How many pidfds are open.
    public var openDescriptorCount: Int { descriptors.count }

    /// Sends `signal` to `process` if it is still the process that identity names.
    ///
    /// - Parameter seenAlive: the caller has just seen the process running (the collector's table, which drops a
    ///   process when the kernel reports its exit): the pidfd's exit check is skipped. A process that exited since
    ///   is then signalled as a zombie, which the kernel accepts, and found gone on the next send.
    /// - Returns: `.delivered`, or `.gone` when the process has exited (a zombie counts as exited) or its pid was
    ///   reused.
    /// - Throws: `EnforcementError` with `.pidfdOpenFailed` or `.signalFailed` (usually `EPERM`: another user's
    ///   process and no `CAP_KILL`).
    public func send(
        _ signal: ProcessSignal, to process: ProcessIdentity, seenAlive: Bool = false
    ) throws(EnforcementError) -> SignalOutcome {
        guard let descriptor = try descriptor(for: process) else { return .gone }
        if !seenAlive, hasExited(descriptor) {
            forget(process)
            return .gone
        }
        do {
            try Syscall.pidfdSendSignal(descriptor, signal.rawValue)
            return .delivered
        } catch .noSuchProcess {
            forget(process)
            return .gone
        } catch {
            throw EnforcementError(.signalFailed, "sending \(signal) to process \(process)", errno: error)
        }
    }

    /// Whether the process that `process` names is alive (a zombie counts as exited).
    public func isAlive(_ process: ProcessIdentity) -> Bool {
        guard let descriptor = try? descriptor(for: process) else { return false }
        return !hasExited(descriptor)
    }

    /// Closes the pidfd kept for `process`, if any.
    public func forget(_ process: ProcessIdentity) {
        if let descriptor = descriptors.removeValue(forKey: process) { try? descriptor.close() }
    }

    /// Closes every pidfd except those of `processes`.
    public func retain(only processes: Set<ProcessIdentity>) {
        for process in descriptors.keys where !processes.contains(process) { forget(process) }
    }

    /// The cached pidfd of `process`, opening and verifying one if needed; nil when the process is gone.
    private func descriptor(for process: ProcessIdentity) throws(EnforcementError) -> FileDescriptor? {
        if let descriptor = descriptors[process] { return descriptor }
        let descriptor: FileDescriptor
        do {
            descriptor = try Syscall.pidfdOpen(process.pid.rawValue)
        } catch .noSuchProcess {
            return nil
        } catch {
            throw EnforcementError(.pidfdOpenFailed, "opening a pidfd for process \(process)", errno: error)
        }
        // Read after opening: if the start time still matches now, the pidfd was opened on that very process.
        guard let status = ProcessStatus.read(process.pid, procRoot: procRoot), status.startTime == process.startTime
        else {
            try? descriptor.close()
            return nil
        }
        descriptors[process] = descriptor
        return descriptor
    }

    /// A pidfd becomes readable once its process has exited, zombie or reaped.
    private func hasExited(_ descriptor: FileDescriptor) -> Bool {
        let events = (try? Syscall.poll(descriptor, events: Int16(POLLIN), timeoutMilliseconds: 0)) ?? 0
        return events & Int16(POLLIN) != 0
    }
}
