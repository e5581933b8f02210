import Foundation

/// The unprivileged account that runs compositors in tests (sway refuses to run as root), created on demand by
/// `Tests/Integration/desktop/test-user.sh`.
struct FocusTestUser: Sendable {
    var name: String
    var uid: UInt32
    var gid: UInt32
    var home: String

    /// The account named `stfocus` (or `$SCREENTIME_FOCUS_TEST_USER`), created if missing; nil when that fails.
    static func ensure() -> FocusTestUser? {
        let name = ProcessInfo.processInfo.environment["SCREENTIME_FOCUS_TEST_USER"] ?? "stfocus"
        guard
            let result = try? FocusTestProcesses().run("/bin/sh", [FocusTestEnvironment.script("test-user.sh"), name])
        else { return nil }
        let fields = result.output.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ":")
        guard result.status == 0, fields.count == 4, let uid = UInt32(fields[1]), let gid = UInt32(fields[2]) else {
            return nil
        }
        return FocusTestUser(name: String(fields[0]), uid: uid, gid: gid, home: String(fields[3]))
    }

    /// Makes a private `XDG_RUNTIME_DIR` (mode 0700, owned by the user) removed with `processes`.
    func runtimeDirectory(in processes: FocusTestProcesses) throws -> String {
        let directory = try processes.temporaryDirectory("stfocus-runtime")
        chmod(directory, 0o700)
        chown(directory, uid, gid)
        return directory
    }
}
