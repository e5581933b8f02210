/// What a monitor extension may use, like the limits Apple puts on a `DeviceActivityMonitor` extension.
///
/// Memory is limited with `RLIMIT_AS` (address space), because it works unprivileged, without systemd and on
/// cgroup v1 and v2 hosts alike. Address space is not resident memory: a Swift program reserves far more than it
/// touches (measured on x86-64: a Foundation program that ran one task had VmSize 68 MiB for 16 MiB resident, and
/// every further thread can add 8 MiB of stack and a 64 MiB malloc arena), so the default is 512 MiB, not Apple's
/// 6 MiB of resident memory. Going over it makes allocations fail inside the extension (Swift traps, Python raises
/// `MemoryError`), which the runner reports as `ExtensionOutcome.exceededMemoryLimit`.
public struct ExtensionLimits: Hashable, Sendable {
    /// The longest an extension may run before it is sent `SIGTERM`.
    public var timeLimit: Duration
    /// How long after `SIGTERM` it gets before `SIGKILL`.
    public var terminationGrace: Duration
    /// `RLIMIT_AS` in bytes; nil for none.
    public var addressSpaceBytes: UInt64?
    /// The most output lines kept in the outcome (all are logged); the earliest are dropped first.
    public var keptOutputLines: Int
    /// Longer lines are cut to this many bytes.
    public var maximumLineBytes: Int

    /// Creates limits.
    public init(
        timeLimit: Duration = .seconds(30), terminationGrace: Duration = .seconds(2),
        addressSpaceBytes: UInt64? = 512 << 20, keptOutputLines: Int = 200, maximumLineBytes: Int = 4096
    ) {
        self.timeLimit = timeLimit
        self.terminationGrace = terminationGrace
        self.addressSpaceBytes = addressSpaceBytes
        self.keptOutputLines = keptOutputLines
        self.maximumLineBytes = maximumLineBytes
    }

    /// 30 s, 2 s of grace, 512 MiB of address space.
    public static let standard = ExtensionLimits()
}
