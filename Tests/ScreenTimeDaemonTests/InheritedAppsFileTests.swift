import Enforcement
import Foundation
import LinuxActivity
import ScreenTimeModel
import Testing

@testable import ScreenTimeDaemon

/// The processes that inherited their app are kept in a real file beside the ledger, read back by a restart of the
/// same boot only.
@Suite struct InheritedAppsFileTests {
    @Test func aRestartOfTheSameBootReadsBackWhatWasKeptAndNothingElse() throws {
        let directory = try ScratchDirectory()
        let file = InheritedAppsFile(path: directory.path + "/inherited-apps.json")
        #expect(file.load().isEmpty)
        let apps = [
            ProcessIdentity(pid: ProcessID(4242), startTime: 1_234_567): RecalledApp(
                app: AppID("org.example.Launcher"), program: "/usr/lib/game/game-bin"),
            ProcessIdentity(pid: ProcessID(77), startTime: 99): RecalledApp(app: AppID("org.gnome.Terminal")),
        ]
        try file.save(apps)
        #expect(file.load() == apps)

        // Another boot's: its pids and start times may be this boot's processes.
        let text = try #require(String(data: try Data(contentsOf: URL(fileURLWithPath: file.path)), encoding: .utf8))
        let current = try #require(BootID.current)
        try text.replacingOccurrences(of: current, with: "another-boot").write(
            toFile: file.path, atomically: true, encoding: .utf8)
        #expect(file.load().isEmpty)
        // Not a file of this kind: nothing recalled, nothing thrown.
        try "garbage".write(toFile: file.path, atomically: true, encoding: .utf8)
        #expect(file.load().isEmpty)
    }
}
