import Foundation
import ScreenTimeModel
import Testing

@testable import ScreenTimeEngine

/// Settings stores: the effective shield of a user is the union of their stores.
@Suite struct ShieldTests {
    func changed(_ actions: [Action]) -> [EffectiveShield] {
        actions.compactMap { if case .shieldChanged(_, let shield) = $0 { shield } else { nil } }
    }

    @Test func theEffectiveShieldIsTheUnionOfAUsersStores() {
        var script = EngineScript(at: wall(2025, 6, 4, 10, in: utc), in: utc)
        let first = script.handle(
            .settingsStoreChanged(user: alice, store: "limits", settings: ShieldSettings(applications: [app("game")])))
        #expect(changed(first).count == 1)
        script.handle(
            .settingsStoreChanged(
                user: alice, store: "bedtime",
                settings: ShieldSettings(
                    applicationCategories: .all(except: [app("calculator")]))))
        let shield = script.engine.effectiveShield(for: alice)
        #expect(shield.shields(use("game")))
        #expect(shield.shields(use("editor", category: "productivity")))
        #expect(!shield.shields(use("calculator", category: "utilities")))
        #expect(script.engine.effectiveShield(for: bob).isEmpty)

        // Clearing one store leaves the other in force.
        let cleared = script.handle(.settingsStoreChanged(user: alice, store: "bedtime", settings: nil))
        #expect(changed(cleared) == [EffectiveShield(union: [ShieldSettings(applications: [app("game")])])])
        #expect(!script.engine.effectiveShield(for: alice).shields(use("editor", category: "productivity")))
    }

    @Test func theMostRestrictiveStoreWins() {
        var shield = EffectiveShield(union: [
            ShieldSettings(applicationCategories: .specific([category("games")], except: [app("chess")])),
            ShieldSettings(applicationCategories: .specific([category("games")])),
            ShieldSettings(applicationCategories: .all(except: [app("chess"), app("calculator")])),
            ShieldSettings(applicationCategories: .all(except: [app("calculator")])),
        ])
        #expect(shield.shields(application: app("chess"), category: category("games")))
        #expect(!shield.shields(application: app("calculator"), category: category("utilities")))
        shield = EffectiveShield(union: [
            ShieldSettings(applicationCategories: .specific([category("games")], except: [app("chess")]))
        ])
        #expect(!shield.shields(application: app("chess"), category: category("games")))
        #expect(shield.shields(application: app("tetris"), category: category("games")))
        #expect(!shield.shields(application: app("editor"), category: category("productivity")))
    }

    @Test func anUnchangedUnionAnnouncesNothing() {
        var script = EngineScript(at: wall(2025, 6, 4, 10, in: utc), in: utc)
        let settings = ShieldSettings(applications: [app("game")])
        script.handle(.settingsStoreChanged(user: alice, store: "a", settings: settings))
        #expect(changed(script.handle(.settingsStoreChanged(user: alice, store: "b", settings: settings))).isEmpty)
        #expect(changed(script.handle(.settingsStoreChanged(user: alice, store: "a", settings: nil))).isEmpty)
        #expect(
            changed(script.handle(.settingsStoreChanged(user: alice, store: "b", settings: nil))) == [EffectiveShield()]
        )
        #expect(script.engine.settings(of: "a", for: alice) == nil)
    }

    @Test func webDomainsAreShieldedByDomainAndCategory() {
        let shield = EffectiveShield(union: [ShieldSettings(webDomains: [WebDomainToken(rawValue: "video")])])
        let browsing = AppUse(
            application: app("browser"), category: category("web-browsers"),
            webDomain: WebDomainToken(rawValue: "video"))
        #expect(shield.shields(browsing))
        #expect(!shield.shields(use("browser", category: "web-browsers")))
    }
}
