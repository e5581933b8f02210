import Testing

/// Tests against the real kernel: real processes, signals and the cgroup v2 freezer. Serialized so that no more
/// than a few busy loops compete for this machine's CPUs at once.
@Suite(.serialized, .enabled(if: TestCgroup.isAvailable, "needs root and a writable cgroup2 mount"))
struct KernelTests {}
