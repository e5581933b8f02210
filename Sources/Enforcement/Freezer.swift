import Glibc
import ScreenTimeModel
import SystemPackage

/// What became of a freeze or thaw request.
public enum FreezeOutcome: Hashable, Sendable {
    /// `cgroup.events` reports the requested state.
    case settled
    /// The cgroup no longer exists (its app exited and systemd removed the scope).
    case gone
}

/// Freezes and thaws cgroups through the cgroup v2 freezer (`cgroup.freeze`, `cgroup.events`).
///
/// A frozen cgroup's processes do not run until it is thawed: `SIGCONT` does not wake them, and processes that
/// join the cgroup later (forked or moved in) are frozen as well. Only cgroups that belong to one app alone may be
/// frozen; `isAppOwnCgroup(_:)` tells which. Writing `cgroup.freeze` needs write access to the file: root, or the
/// user manager's owner inside its delegated subtree.
public struct Freezer: Sendable {
    /// Where the cgroup2 file system is mounted: `/sys/fs/cgroup` on a unified host, `/sys/fs/cgroup/unified` on a
    /// hybrid one.
    public var mountPoint: FilePath

    /// Creates a freezer for the cgroup2 hierarchy mounted at `mountPoint`.
    public init(mountPoint: FilePath) {
        self.mountPoint = mountPoint
    }

    /// Creates a freezer for the cgroup2 mount that `mountsFile` lists.
    public init(mountsFile: FilePath = "/proc/self/mounts") throws(EnforcementError) {
        self.init(mountPoint: try Self.cgroup2MountPoint(mountsFile: mountsFile))
    }

    /// The mount point of the first `cgroup2` file system in a mounts table (`/proc/self/mounts` format, octal
    /// escapes such as `\040` for a space decoded).
    public static func cgroup2MountPoint(mountsFile: FilePath = "/proc/self/mounts") throws(EnforcementError)
        -> FilePath
    {
        let text: String
        do {
            text = try TextFile.read(mountsFile)
        } catch {
            throw EnforcementError(.readFailed, "reading the mount table \(mountsFile)", errno: error)
        }
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count > 2 && fields[2] == "cgroup2" { return FilePath(unescapingMountField(fields[1])) }
        }
        throw EnforcementError(.cgroupMountNotFound, "no cgroup2 file system in \(mountsFile)")
    }

    /// Whether `cgroup` belongs to one app alone and may be frozen; see `CgroupPath.isAppOwnCgroup`.
    public static func isAppOwnCgroup(_ cgroup: CgroupPath) -> Bool { cgroup.isAppOwnCgroup }

    /// The v2 cgroup of process `pid`, from its `/proc/PID/cgroup`; nil when the process is gone.
    public func cgroup(of pid: ProcessID, procRoot: FilePath = "/proc") -> CgroupPath? {
        guard let text = try? TextFile.read(procRoot.appending("\(pid.rawValue)/cgroup")) else { return nil }
        return CgroupPath(procCgroupFile: text)
    }

    /// The cgroup's directory in the file system.
    public func directory(of cgroup: CgroupPath) -> FilePath {
        cgroup.rawValue == "/" ? mountPoint : mountPoint.appending(String(cgroup.rawValue.dropFirst()))
    }

    /// Freezes `cgroup` and waits, with `poll(2)` on `cgroup.events`, until the kernel reports `frozen 1`.
    ///
    /// - Throws: `.freezeFailed` when `cgroup.freeze` cannot be written (`EPERM`, `EBUSY`); `.freezeTimedOut`
    ///   when the state did not settle within `timeout` (the request stays written and usually completes later).
    public func freeze(_ cgroup: CgroupPath, timeout: Duration) throws(EnforcementError) -> FreezeOutcome {
        try request(frozen: true, cgroup, timeout: timeout)
    }

    /// Thaws `cgroup` and waits until the kernel reports `frozen 0`.
    ///
    /// - Throws: `.thawFailed` when `cgroup.freeze` cannot be written; `.freezeTimedOut` when the state did not
    ///   settle within `timeout`.
    public func thaw(_ cgroup: CgroupPath, timeout: Duration) throws(EnforcementError) -> FreezeOutcome {
        try request(frozen: false, cgroup, timeout: timeout)
    }

    /// Whether the kernel reports `cgroup` frozen; nil when the cgroup does not exist.
    public func isFrozen(_ cgroup: CgroupPath) throws(EnforcementError) -> Bool? {
        let events: String
        do {
            events = try TextFile.read(directory(of: cgroup).appending("cgroup.events"))
        } catch .noSuchFileOrDirectory, .noSuchAddressOrDevice {
            return nil
        } catch {
            throw EnforcementError(.readFailed, "reading cgroup.events of \(cgroup)", errno: error)
        }
        return try Self.frozenFlag(in: events, of: cgroup)
    }

    private func request(frozen: Bool, _ cgroup: CgroupPath, timeout: Duration) throws(EnforcementError)
        -> FreezeOutcome
    {
        let directory = directory(of: cgroup)
        do {
            try TextFile.write(frozen ? "1" : "0", to: directory.appending("cgroup.freeze"))
        } catch .noSuchFileOrDirectory, .noSuchAddressOrDevice {
            return .gone
        } catch {
            let verb = frozen ? "freezing" : "thawing"
            throw EnforcementError(frozen ? .freezeFailed : .thawFailed, "\(verb) \(cgroup)", errno: error)
        }
        return try wait(frozen: frozen, cgroup, timeout: timeout)
    }

    /// Waits until `cgroup.events` says `frozen 1` (or `0`). kernfs signals a change of the file with `POLLPRI`;
    /// the file is read before each poll so that no change between the read and the poll is missed.
    private func wait(frozen: Bool, _ cgroup: CgroupPath, timeout: Duration) throws(EnforcementError)
        -> FreezeOutcome
    {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        let descriptor: FileDescriptor
        do {
            descriptor = try TextFile.open(directory(of: cgroup).appending("cgroup.events"), .readOnly)
        } catch .noSuchFileOrDirectory, .noSuchAddressOrDevice {
            return .gone
        } catch {
            throw EnforcementError(.readFailed, "opening cgroup.events of \(cgroup)", errno: error)
        }
        defer { try? descriptor.close() }
        while true {
            let events: String
            do {
                events = try TextFile.read(descriptor)
            } catch .noSuchFileOrDirectory, .noSuchAddressOrDevice {
                return .gone
            } catch {
                throw EnforcementError(.readFailed, "reading cgroup.events of \(cgroup)", errno: error)
            }
            if try Self.frozenFlag(in: events, of: cgroup) == frozen { return .settled }
            let remaining = clock.now.duration(to: deadline)
            if remaining <= .zero {
                let state = frozen ? "frozen 1" : "frozen 0"
                throw EnforcementError(.freezeTimedOut, "\(cgroup) did not report \(state) within \(timeout)")
            }
            let milliseconds = Int32(
                clamping: remaining.components.seconds * 1000
                    + remaining.components.attoseconds / 1_000_000_000_000_000 + 1)
            do {
                _ = try Syscall.poll(descriptor, events: Int16(POLLPRI), timeoutMilliseconds: milliseconds)
            } catch {
                throw EnforcementError(.readFailed, "polling cgroup.events of \(cgroup)", errno: error)
            }
        }
    }

    private static func frozenFlag(in events: String, of cgroup: CgroupPath) throws(EnforcementError) -> Bool {
        for line in events.split(separator: "\n") where line.hasPrefix("frozen ") {
            return line.dropFirst("frozen ".count) == "1"
        }
        throw EnforcementError(.readFailed, "cgroup.events of \(cgroup) has no frozen key (kernel before 5.2?)")
    }

    private static func unescapingMountField(_ field: Substring) -> String {
        var bytes: [UInt8] = []
        var utf8 = field.utf8[...]
        while let byte = utf8.first {
            if byte == UInt8(ascii: "\\"), utf8.count >= 4,
                let value = UInt8(String(decoding: utf8.dropFirst().prefix(3), as: UTF8.self), radix: 8)
            {
                bytes.append(value)
                utf8 = utf8.dropFirst(4)
            } else {
                bytes.append(byte)
                utf8 = utf8.dropFirst()
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
