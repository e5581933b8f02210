import Enforcement
import Foundation
import ScreenTimeModel
import SystemPackage
import Testing

@Suite struct CgroupPathTests {
    @Test(arguments: [
        "/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-org.example.Game-4242.scope",
        "/user.slice/user-1000.slice/user@1000.service/app.slice/app-flatpak-org.example.Game-12345.scope",
        "/user.slice/user-1000.slice/user@1000.service/app.slice/snap.supertuxkart.supertuxkart-1a2b.scope",
        "/user.slice/user-1000.slice/user@1000.service/app.slice/app-org.gnome.Terminal@ab12.service",
        "/user.slice/user-1000.slice/user@1000.service/app.slice/app-kde-org.kde.konsole-1234.scope",
    ])
    func appScopesAndServicesBelongToOneApp(path: String) {
        #expect(Freezer.isAppOwnCgroup(CgroupPath(path)))
    }

    @Test(arguments: [
        "/",
        "/user.slice",
        "/user.slice/user-1000.slice",
        "/user.slice/user-1000.slice/session-3.scope",
        "/user.slice/user-1000.slice/user@1000.service",
        "/user.slice/user-1000.slice/user@1000.service/app.slice",
        "/user.slice/user-1000.slice/user@1000.service/session.slice/org.gnome.Shell@x11.service",
        "/user.slice/user-1000.slice/user@1000.service/app.slice/dbus.service",
        "/user.slice/user-1000.slice/user@1000.service/app.slice/app-.scope",
        "/user.slice/user-1000.slice/user@1000.service/app.slice/app-org.example@.service",
        "/user.slice/user-1000.slice/user@1000.service/app.slice/app-org.example.service",
        "/user.slice/user-1000.slice/session-3.scope/app-gnome-org.example.Game-1.scope",
        "/user.slice/user-1000.slice/user@1000.service/app.slice/../app-gnome-x-1.scope",
        "/init.scope",
        "/system.slice/snapd.service",
        "/snap.scope",
    ])
    func sharedCgroupsAreRefused(path: String) {
        #expect(!Freezer.isAppOwnCgroup(CgroupPath(path)))
    }

    @Test func readsTheUnifiedLineOfAHybridProcCgroupFile() {
        let text = """
            12:pids:/user.slice/user-1000.slice/session-3.scope
            1:name=systemd:/user.slice/user-1000.slice/session-3.scope
            0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-org.example.Game-4242.scope

            """
        #expect(
            CgroupPath(procCgroupFile: text)?.rawValue
                == "/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-org.example.Game-4242.scope")
        #expect(CgroupPath(procCgroupFile: "4:memory:/foo\n") == nil)
    }

    @Test func findsTheCgroup2MountInAMountTable() throws {
        let file = FilePath(NSTemporaryDirectory() + "mounts-\(getpid())-\(UUID())")
        defer { try? FileManager.default.removeItem(atPath: file.string) }
        try """
        proc /proc proc rw,nosuid 0 0
        cgroup /sys/fs/cgroup/freezer cgroup rw,relatime,freezer 0 0
        cgroup2 /sys/fs/cgroup/my\\040unified cgroup2 rw,relatime 0 0

        """.write(toFile: file.string, atomically: true, encoding: .utf8)
        #expect(try Freezer.cgroup2MountPoint(mountsFile: file) == "/sys/fs/cgroup/my unified")

        try "proc /proc proc rw 0 0\n".write(toFile: file.string, atomically: true, encoding: .utf8)
        #expect(throws: EnforcementError.self) { try Freezer.cgroup2MountPoint(mountsFile: file) }
    }

    @Test func findsThisHostsCgroupOfTheTestProcess() throws {
        let freezer = try Freezer()
        #expect(freezer.cgroup(of: ProcessID(getpid())) != nil)
        #expect(freezer.cgroup(of: ProcessID(Int32.max)) == nil)
    }

    @Test func parsesStatLinesWhoseCommandHasSpacesAndParentheses() {
        let line = "4242 (evil) (game x) T 1 4242 4242 0 -1 4194560 98 0 0 0 1 2 0 0 20 0 1 0 987654 0 0"
        let status = ProcessStatus(statLine: line)
        #expect(status?.state == "T")
        #expect(status?.startTime == 987654)
        #expect(ProcessStatus(statLine: "garbage") == nil)
    }
}
