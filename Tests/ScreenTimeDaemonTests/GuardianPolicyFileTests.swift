import Foundation
import Glibc
import LinuxActivity
import ScreenTimeModel
import Testing

@testable import ScreenTimeDaemon

/// A guardian policy is trusted only when root alone can write it and every folder above it.
@Suite struct GuardianPolicyFileTests {
    /// A folder in /run (root's, mode 755) when running as root, else in the home folder (the user's own).
    static func folder() throws -> String {
        let base = getuid() == 0 ? "/run" : NSHomeDirectory()
        var template = Array("\(base)/screentime-guardian-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        let path = String(cString: made)
        chmod(path, 0o755)
        return path
    }

    @Test func onlyAFileRootAloneCanWriteIsTrusted() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = folder + "/default.toml"
        try Data("[[limit]]\nname = \"games\"\napps = [\"supertuxkart\"]\ndaily = \"1h\"\n".utf8).write(
            to: URL(fileURLWithPath: file))
        chmod(file, 0o644)
        if getuid() != 0 {
            #expect(Policy.guardianFileProblem(at: file)?.contains("belongs to uid \(getuid()), not root") == true)
            return
        }
        #expect(Policy.guardianFileProblem(at: file) == nil)
        #expect(try Policy.load(from: file, role: .guardianDefault).limits.count == 1)

        chmod(file, 0o666)
        #expect(
            Policy.guardianFileProblem(at: file)?.hasPrefix(
                "the file is writable by its group or by everyone (mode 666)") == true)
        chmod(file, 0o644)
        chown(file, 1000, 1000)
        let refused = Policy.guardianFileProblem(at: file)
        #expect(
            refused
                == "the file belongs to uid 1000, not root, so that user can change the limits; fix: chown root:root \(file) && chmod 644 \(file)"
        )
        #expect(throws: PolicyError.self) { try Policy.load(from: file, role: .guardianDefault) }
        chown(file, 0, 0)
        // A folder the child can write lets them swap the file: refused too, also through a symbolic link.
        chmod(folder, 0o777)
        #expect(Policy.guardianFileProblem(at: file)?.hasPrefix("the folder \(folder) is writable") == true)
        chmod(folder, 0o755)
        let link = folder + "/link.toml"
        symlink(file, link)
        #expect(Policy.guardianFileProblem(at: link) == nil)
        let writable = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: writable) }
        chmod(writable, 0o1777)
        let elsewhere = writable + "/policy.toml"
        try Data().write(to: URL(fileURLWithPath: elsewhere))
        chmod(elsewhere, 0o644)
        unlink(link)
        symlink(elsewhere, link)
        #expect(Policy.guardianFileProblem(at: link)?.hasPrefix("the folder \(writable) is writable") == true)
        // A link to root's own file, in a folder the child can write (they could point it anywhere): refused.
        let linkInWritable = writable + "/kid.toml"
        symlink(file, linkInWritable)
        #expect(Policy.guardianFileProblem(at: linkInWritable)?.hasPrefix("the folder \(writable) is writable") == true)
        // A chain of links whose middle link lies in a folder the child can write: refused, though the first link's
        // folder and the file's are root's.
        unlink(link)
        symlink(linkInWritable, link)
        #expect(Policy.guardianFileProblem(at: link)?.hasPrefix("the folder \(writable) is writable") == true)
        // The same through a link to a folder: root's folder `users` is a link into the writable one.
        let users = folder + "/users"
        symlink(writable, users)
        unlink(linkInWritable)
        try Data().write(to: URL(fileURLWithPath: writable + "/kid.toml"))
        chmod(writable + "/kid.toml", 0o644)
        #expect(
            Policy.guardianFileProblem(at: users + "/kid.toml")?.hasPrefix("the folder \(writable) is writable") == true
        )
        // A chain kept in root's folders: trusted.
        unlink(link)
        let second = folder + "/second.toml"
        symlink(file, second)
        symlink("second.toml", link)
        #expect(Policy.guardianFileProblem(at: link) == nil)
    }
}

/// In guardian mode only the scopes the system manager made for a shield are frozen in place; everything else is
/// moved into one first.
@Suite struct GuardianScopeTests {
    @Test func onlyARootScopeOfTheUsersSliceIsTrusted() {
        let user = ScreenTimeModel.UserID(1001)
        // The process each was made for ends its name (an app id's own dashes are escaped).
        #expect(
            ControlGroup.guardianShieldScopeProcess(
                "/user.slice/user-1001.slice/app-screentime-org.example.Kart\\x2dLauncher-42.scope", of: user)
                == ProcessID(42))
        #expect(
            ControlGroup.guardianShieldScopeProcess(
                "/user.slice/user-1001.slice/user@1001.service/app.slice/app-screentime-x-42.scope", of: user) == nil)
        #expect(
            ControlGroup.isGuardianShieldScope(
                "/user.slice/user-1001.slice/app-screentime-supertuxkart-42.scope", of: user))
        // The user's own app scope: they can write its cgroup.freeze.
        #expect(
            !ControlGroup.isGuardianShieldScope(
                "/user.slice/user-1001.slice/user@1001.service/app.slice/app-screentime-x-1.scope", of: user))
        #expect(
            !ControlGroup.isGuardianShieldScope(
                "/user.slice/user-1001.slice/user@1001.service/app.slice/app-gnome-game-1.scope", of: user))
        // Another user's, and a name that only looks like one.
        #expect(
            !ControlGroup.isGuardianShieldScope(
                "/user.slice/user-1002.slice/app-screentime-supertuxkart-42.scope", of: user))
        #expect(!ControlGroup.isGuardianShieldScope("/user.slice/user-1001.slice/session-3.scope", of: user))
    }

    /// A restart reads the app back from the scope's name: an id with `-` or other characters must survive it.
    @Test func aShieldScopesNameGivesBackItsAppsID() {
        for id in ["google-chrome", "org.gnome.Calculator", "steam_app_4000", "jeu-été"] {
            let name = ControlGroup.shieldScopePrefix + ServiceManagerConfiner.unitNamePart(id) + "-4242.scope"
            #expect(UnitName.appID(of: name) == AppID(id), "\(name)")
        }
        #expect(ServiceManagerConfiner.unitNamePart("google-chrome") == "google\\x2dchrome")
    }
}
