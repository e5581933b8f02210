import Foundation
import Testing

/// Under CI the kernel tests must run: without root and a writable cgroup2 mount they fail there instead of being
/// left out.
@Suite struct KernelPrerequisiteTests {
    @Test func underCITheCgroupFreezerTestsCanRun() {
        guard ProcessInfo.processInfo.environment["CI"] == "true" else { return }
        #expect(TestCgroup.isAvailable, "the kernel tests need root and a writable cgroup2 mount")
    }
}
