import Foundation
import Glibc
import ScreenTimeBus
import ScreenTimeModel
import Testing

@testable import ScreenTimeDaemon

/// Whom a guardian daemon's signals go to on the system bus, which every user listens to.
@Suite struct BusSignalAudienceTests {
    static let request = TimeRequest(
        id: 1, user: 1001, userName: "ana", seconds: 300, reason: "homework", filedAt: Date(), state: .pending)
    /// uid 1000 is the guardian here.
    static func isGuardian(_ uid: UInt32) -> Bool { uid == 0 || uid == 1000 }

    @Test func aUsersNotificationShieldAndCallbacksGoToThatUserAlone() {
        let signals: [BusSignal] = [
            .notification(user: UserID(1001), kind: "shield", limit: "games", title: "t", body: "b", secondary: "s"),
            .shieldChanged(user: UserID(1001), json: "{}"),
            .callback(
                user: UserID(1001), client: AppID("org.example.App"), callback: .intervalDidStart,
                activity: "a", event: ""),
        ]
        for signal in signals {
            #expect([0, 1000, 1001, 1002].filter { signal.concerns($0, isGuardian: Self.isGuardian) } == [1001])
        }
    }

    @Test func aRequestGoesToTheGuardiansAndItsAnswerAlsoToItsUser() {
        let filed = BusSignal.requestFiled(Self.request)
        let answered = BusSignal.requestAnswered(Self.request)
        #expect([0, 1000, 1001, 1002].filter { filed.concerns($0, isGuardian: Self.isGuardian) } == [0, 1000])
        #expect(
            [0, 1000, 1001, 1002].filter { answered.concerns($0, isGuardian: Self.isGuardian) } == [0, 1000, 1001])
        #expect(BusSignal.daemonPropertiesChanged.concerns(1002, isGuardian: Self.isGuardian))
    }

    @Test func rootAndOnlyAdministratorsAreGuardians() {
        #expect(Guardians.include(0))
        // nobody (65534) is in no administrators' group on any system this runs on; an unknown uid is nobody's.
        #expect(!Guardians.include(65534))
        #expect(!Guardians.include(4_000_000_000))
    }
}
