import Foundation
import PropertyBased
import ScreenTimeModel
import Testing

@testable import ScreenTimeEngine

/// Use is measured on the monotonic clock: whoever sets the wall clock, and by how much, changes no total.
@Suite struct ClockPropertyTests {
    @Test func settingTheWallClockNeitherAddsNorRemovesUse() async {
        await propertyCheck(
            input: steps(maxGapTenths: 30, count: 2...150), Gen.int(in: 0...149), Gen.int(in: -60...60)
        ) { steps, position, minutes in
            // The engine starts at noon inside a midnight-to-midnight interval: an hour either way stays inside it.
            var script = propertyEngine()
            for (index, step) in steps.enumerated() {
                if index == position % steps.count {
                    script.setWallClock(to: script.now.wallClock + .seconds(minutes * 60))
                }
                script.play([step])
            }
            #expect(script.used("all") == bruteForceUse(steps, user: 0) { _ in true })
            #expect(script.used("games") == bruteForceUse(steps, user: 0, counts: playsGames))
            // Only the start of monitoring inside the interval started it; no step starts or ends it again.
            #expect(script.log.callbacks.filter { $0 == .intervalDidStart("daily") }.count == 1)
            #expect(!script.log.callbacks.contains(.intervalDidEnd("daily")))
        }
    }
}
