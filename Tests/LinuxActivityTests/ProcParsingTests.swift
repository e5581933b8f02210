import ScreenTimeModel
import Testing

@testable import LinuxActivity

@Suite struct ProcessStatParsing {
    static let tail = "S 1 1234 1234 34817 5678 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 100"

    @Test func parsesTheFieldsTheCollectorUses() throws {
        let stat = try #require(ProcessStat(parsing: Array("4242 (bash) \(Self.tail)\n".utf8)))
        #expect(stat.pid == ProcessID(4242))
        #expect(stat.command == "bash")
        #expect(stat.state == "S")
        #expect(stat.parent == ProcessID(1))
        #expect(stat.processGroup == 1234)
        #expect(stat.session == 1234)
        #expect(stat.terminal == 34817)
        #expect(stat.terminalForegroundGroup == 5678)
        #expect(stat.startTime == 987654)
    }

    @Test(arguments: [
        "my game", "a) (b", "(((", ")", "x) S 1 2 3", "", "\u{1F3AE} game",
    ])
    func commWithSpacesAndParenthesesIsTheTextUpToTheLastParenthesis(comm: String) throws {
        let stat = try #require(ProcessStat(parsing: Array("77 (\(comm)) \(Self.tail)".utf8)))
        #expect(stat.command == comm)
        #expect(stat.pid == ProcessID(77))
        #expect(stat.startTime == 987654)
        #expect(stat.identity == ProcessIdentity(pid: ProcessID(77), startTime: 987654))
    }

    @Test func noForegroundGroupIsMinusOne() throws {
        let stat = try #require(
            ProcessStat(parsing: Array("9 (init) S 0 0 0 0 -1 4194560 1 0 0 0 1 2 0 0 20 0 1 0 5 1000 100".utf8)))
        #expect(stat.terminalForegroundGroup == -1)
        #expect(stat.terminal == 0)
    }

    @Test(arguments: ["", "12", "12 (x", "12 x) S 1", "abc (x) S 1 2 3", "12 (x) S 1 2"])
    func malformedInputIsNil(text: String) {
        #expect(ProcessStat(parsing: Array(text.utf8)) == nil)
    }
}

@Suite struct ControlGroupParsing {
    @Test func unifiedLine() throws {
        let group = try #require(ControlGroup(parsing: "0::/user.slice/user-1000.slice/session-3.scope\n"))
        #expect(group.path == "/user.slice/user-1000.slice/session-3.scope")
        #expect(group.sessionScope == "3")
        #expect(group.sliceOwner == 1000)
        #expect(!group.isInAppSlice)
    }

    @Test func aScopeTheGuardianMadeHoldsTheUsersApps() throws {
        // A shielded app moved by the guardian daemon into a root-owned scope of the user's slice is still theirs.
        let group = try #require(
            ControlGroup(parsing: "0::/user.slice/user-1001.slice/app-screentime-supertuxkart-4242.scope\n"))
        #expect(group.isInAppSlice)
        #expect(group.sliceOwner == 1001)
        #expect(!group.isInUserManager)
        #expect(group.sessionScope == nil)
    }

    /// Units a user's own manager makes may take any name: neither a session's nor a manager's of another user.
    @Test func namesInAUsersOwnTreeAreNotTakenForASessionOrAnotherUser() throws {
        let fake = try #require(
            ControlGroup(parsing: "0::/user.slice/user-1000.slice/user@1000.service/app.slice/session-99.scope\n"))
        #expect(fake.sessionScope == nil)
        #expect(fake.sliceOwner == 1000)
        #expect(fake.isInUserManager)
        let root = try #require(
            ControlGroup(parsing: "0::/user.slice/user-1000.slice/user@1000.service/user-0.slice/user@0.service\n"))
        #expect(root.sliceOwner == 1000)
        // Below a container's manager, the same tree.
        let nested = try #require(
            ControlGroup(parsing: "0::/machine.slice/machine-x.scope/payload/user.slice/user-2001.slice/session-4.scope\n"))
        #expect(nested.sessionScope == "4")
        #expect(nested.sliceOwner == 2001)
    }

    @Test func hybridPrefersTheUnifiedLine() throws {
        let text = """
            12:pids:/user.slice/user-1000.slice/session-c2.scope
            1:name=systemd:/user.slice/user-1000.slice/session-c2.scope
            0::/user.slice/user-1000.slice/session-c2.scope
            """
        let group = try #require(ControlGroup(parsing: text))
        #expect(group.sessionScope == "c2")
    }

    @Test func legacyOnlyUsesTheSystemdHierarchy() throws {
        let text = """
            11:memory:/user.slice
            1:name=systemd:/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-org.gnome.Terminal-99.scope
            3:cpu,cpuacct:/user.slice
            """
        let group = try #require(ControlGroup(parsing: text))
        #expect(group.path.hasSuffix("app-gnome-org.gnome.Terminal-99.scope"))
        #expect(group.isInAppSlice)
        #expect(group.isInUserManager)
        #expect(group.sliceOwner == 1000)
        #expect(group.sessionScope == nil)
    }

    @Test func aFlatpakIsMentionedAnywhereInThePath() throws {
        let scope = "/user.slice/user-1000.slice/user@1000.service/app.slice/app-flatpak-org.gnome.Maps-4242.scope"
        #expect(try #require(ControlGroup(parsing: "0::\(scope)\n")).mentionsFlatpak)
        #expect(
            ControlGroup(path: "/user.slice/user-1000.slice/user@1000.service/flatpak-session-helper.service")
                .mentionsFlatpak)
        #expect(
            !ControlGroup(path: "/user.slice/user-1000.slice/user@1000.service/app.slice/flat.scope").mentionsFlatpak)
        #expect(!ControlGroup(path: "/user.slice/user-1000.slice/session-2.scope").mentionsFlatpak)
        // A user manager's tree whatever its name ends with; not a name that merely holds `user@` further on.
        #expect(ControlGroup(path: "/user.slice/user-1000.slice/user@1000.service").isInUserManager)
        #expect(!ControlGroup(path: "/system.slice/mail-for-user@example.service").isInUserManager)
    }

    @Test func pathsMayContainColons() throws {
        let group = try #require(ControlGroup(parsing: "0::/system.slice/weird:name.service\n"))
        #expect(group.path == "/system.slice/weird:name.service")
    }

    @Test func noUsableLineIsNil() {
        #expect(ControlGroup(parsing: "5:cpu:/\n") == nil)
        #expect(ControlGroup(parsing: "") == nil)
    }
}
