import Foundation
import LinuxActivity
import ScreenTimeModel
import Synchronization

/// The collector's accounting in miniature: sample a focus source once per second and credit the second to the
/// focused window's class, while a plan moves the focus.
enum FocusAccounting {
    /// Follows `plan` (class to focus, for how long) through `focus`, while a dedicated thread samples `source`
    /// once per second, half a second into each second; returns the seconds credited to each class.
    ///
    /// Both run on their own threads with absolute deadlines, so a busy machine (or Swift's cooperative pool
    /// being full) delays a sample without losing it. `key` names what a reading is credited to (the window class
    /// unless told otherwise).
    static func run(
        source: some FocusSource, plan: [(String, Duration)],
        key: @escaping @Sendable (FocusedWindow) -> String? = { $0.windowClass }, focus: (String) throws -> Void
    ) throws -> [String: Int] {
        let clock = ContinuousClock()
        let start = clock.now
        let total = plan.reduce(Duration.zero) { $0 + $1.1 }
        let samples = Int(total.components.seconds)
        let totals = Mutex<[String: Int]>([:])
        let done = DispatchSemaphore(value: 0)
        let sampler = Thread {
            for index in 0..<samples {
                let deadline = start + .milliseconds(500) + .seconds(index)
                let wait = deadline - clock.now
                if wait > .zero { Thread.sleep(forTimeInterval: seconds(wait)) }
                if let window = source.current()?.window, let name = key(window) {
                    totals.withLock { $0[name, default: 0] += 1 }
                }
            }
            done.signal()
        }
        sampler.start()
        var elapsed = Duration.zero
        for (windowClass, duration) in plan {
            try focus(windowClass)
            elapsed += duration
            let wait = start + elapsed - clock.now
            if wait > .zero { Thread.sleep(forTimeInterval: seconds(wait)) }
        }
        done.wait()
        return totals.withLock { $0 }
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
