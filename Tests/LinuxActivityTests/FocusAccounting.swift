import Foundation
import LinuxActivity

/// The collector's accounting in miniature: sample a focus source once per second and credit the second to the
/// focused window's class, while a plan moves the focus.
enum FocusAccounting {
    /// Follows `plan` (class to focus, for how long) through `focus`, sampling `source` every second meanwhile;
    /// returns the seconds credited to each class.
    static func run(
        source: some FocusSource, plan: [(String, Duration)], focus: @escaping (String) throws -> Void
    ) async throws -> [String: Int] {
        let sampler = Task.detached { () -> [String: Int] in
            var totals: [String: Int] = [:]
            let clock = ContinuousClock()
            var next = clock.now + .milliseconds(500)
            while !Task.isCancelled {
                try? await clock.sleep(until: next)
                if Task.isCancelled { break }
                if let windowClass = source.current()?.window?.windowClass { totals[windowClass, default: 0] += 1 }
                next += .seconds(1)
            }
            return totals
        }
        let clock = ContinuousClock()
        let start = clock.now
        var elapsed = Duration.zero
        for (windowClass, duration) in plan {
            try focus(windowClass)
            elapsed += duration
            try await clock.sleep(until: start + elapsed)
        }
        sampler.cancel()
        return await sampler.value
    }
}
