import Enforcement
import Foundation
import ScreenTimeModel
import SystemPackage
import Testing

/// The enforcer's state file outlives a crash, not a boot: another boot's processes and scopes are gone, and a pid
/// and start time of this boot may match one of them.
@Suite struct StateFileTests {
    let held = HeldResources(apps: [
        .init(
            app: AppID("org.example.Game"), frozen: [CgroupPath("/user.slice/app-game.scope")],
            stopped: [ProcessIdentity(pid: ProcessID(812), startTime: 312)])
    ])

    @Test func whatThisBootWroteIsReadBack() throws {
        let file = StateFile(path: FilePath(NSTemporaryDirectory() + "enforcement-\(UUID()).json"))
        defer { try? file.save(HeldResources()) }
        try file.save(held)
        #expect(try file.load() == held)
    }

    @Test func whatAnotherBootWroteHoldsNothingAndAFileWithoutABootIsRead() throws {
        let path = NSTemporaryDirectory() + "enforcement-\(UUID()).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let apps = """
            "apps" : [ { "app" : "org.example.Game", "frozen" : [ "/user.slice/app-game.scope" ],
              "stopped" : [ { "pid" : 812, "startTime" : 312 } ] } ]
            """
        try "{ \"version\" : 1, \"bootID\" : \"00000000-0000-0000-0000-000000000000\", \(apps) }".write(
            toFile: path, atomically: true, encoding: .utf8)
        #expect(try StateFile(path: FilePath(path)).load().isEmpty)
        try "{ \"version\" : 1, \(apps) }".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try StateFile(path: FilePath(path)).load() == held)
    }
}
