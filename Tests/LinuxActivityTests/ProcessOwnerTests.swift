import Foundation
import Glibc
import ScreenTimeModel
import Testing

@testable import LinuxActivity

/// A process in a user's rootless container runs under one of their subordinate ids, a uid of no account; it is
/// theirs all the same: real user namespaces, nested, with the mapping written as `newuidmap` writes it.
@Suite(.serialized) struct ProcessOwnerTests {
    @Test func aProcessUnderASubordinateIDIsTheNamespaceOwners() throws {
        guard geteuid() == 0 else { return notRunnable("writing another user's uid_map takes root") }
        let processes = FocusTestProcesses()
        defer { processes.stopAll() }
        let owner: UInt32 = 4242
        let subordinate: UInt32 = 300_007
        // As the owner: a namespace of theirs, in which, once mapped, the shell becomes uid 7 (a subordinate id
        // outside) and makes a namespace of its own (as a container's processes may), to run the "game" in.
        let shell =
            "until grep -q . /proc/self/uid_map; do sleep 0.02; done; "
            + "exec setpriv --reuid=7 --regid=7 --clear-groups unshare --user --map-root-user /bin/sleep 600"
        let child = try processes.start(
            "/usr/bin/setpriv",
            ["--reuid=\(owner)", "--regid=\(owner)", "--clear-groups", "unshare", "--user", "/bin/sh", "-c", shell])
        let ownNamespace = try #require(FileSystem.readLink("/proc/self/ns/user"))
        let namespace = "/proc/\(child.pid)/ns/user"
        guard eventually({ FileSystem.readLink(namespace).map { $0 != ownNamespace } ?? false }) else {
            return notRunnable("user namespaces can't be made here (unshare --user)")
        }
        for map in ["uid_map", "gid_map"] {
            try writeFile("/proc/\(child.pid)/\(map)", "0 \(owner) 1\n7 \(subordinate) 1\n")
        }
        #expect(
            eventually { ProcessTable.executable(procRoot: "/proc", pid: ProcessID(child.pid)) == "/usr/bin/sleep" })
        var folder = stat()
        #expect(stat("/proc/\(child.pid)", &folder) == 0 && folder.st_uid == subordinate)

        let table = ProcessTable()
        table.refresh()
        let entry = try #require(table.entries[ProcessID(child.pid)])
        #expect(entry.user == UserID(owner))
        #expect(entry.runsAsSubordinateID)
        #expect(table.processIDsByUser[UserID(owner)]?.contains(ProcessID(child.pid)) == true)
        // This process, in this namespace, is the uid it runs as.
        #expect(table.entries[ProcessID(getpid())]?.user == UserID(geteuid()))
        #expect(table.entries[ProcessID(getpid())]?.runsAsSubordinateID == false)
        #expect(ProcessOwner.user(ofProcessIn: "/proc/\(child.pid)", runningAs: UserID(subordinate)) == UserID(owner))
        // What it runs is the owner's own program (root's /bin/sleep, seen through their container), not so the
        // same file run by one of their processes outside it.
        #expect(AppResolver(trustsUnitNames: false).runsUsersOwnProgram(entry))
        var outside = entry
        outside.runsAsSubordinateID = false
        #expect(!AppResolver(trustsUnitNames: false).runsUsersOwnProgram(outside))
        // Named as a system app's program (elsewhere on the system), it is known as theirs, never as that app.
        let system = try #require(
            DesktopEntry(id: "org.example.Sleep", parsing: "[Desktop Entry]\nName=Sleep\nExec=/opt/example/sleep\n"))
        let index = DesktopEntryIndex(entries: [system])
        #expect(
            AppResolver(trustsUnitNames: false).resolve(entry, parent: nil, desktopEntries: index)
                == ResolvedApp(id: AppID("~sleep"), source: .executable))
        #expect(
            AppResolver(trustsUnitNames: false).resolve(outside, parent: nil, desktopEntries: index)
                == ResolvedApp(id: AppID("sleep"), source: .executable))
    }
}
