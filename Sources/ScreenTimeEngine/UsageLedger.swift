import ScreenTimeModel

/// One user's counted use, as runs of wall-clock time with the same apps in front. It answers
/// `includesPastActivity`: how much matching use an interval already holds when monitoring starts.
struct UsageLedger: Hashable, Sendable, Codable {
    struct Run: Hashable, Sendable, Codable {
        /// Wall-clock nanoseconds; `end - start` is the monotonic length of the use.
        var start: Int64
        var end: Int64
        var uses: [AppUse]
    }

    private(set) var runs: [Run] = []

    /// Records `length` nanoseconds of use starting at wall-clock `start`, extending the last run when it is the
    /// same use and ends where this begins.
    mutating func record(start: Int64, length: Int64, uses: [AppUse]) {
        if let last = runs.indices.last, runs[last].end == start, runs[last].uses == uses {
            runs[last].end += length
        } else {
            runs.append(Run(start: start, end: start + length, uses: uses))
        }
    }

    /// Forgets runs that ended before `cutoff`.
    mutating func prune(endingBefore cutoff: Int64) {
        guard let first = runs.first, first.end < cutoff else { return }
        let keep = runs.firstIndex { $0.end >= cutoff } ?? runs.endIndex
        runs.removeSubrange(..<keep)
    }

    /// Nanoseconds of use in `[start, end)` that `event` counts.
    func usage(from start: Int64, to end: Int64, countedBy event: ActivityEvent) -> Int64 {
        var total: Int64 = 0
        for run in runs where run.end > start && run.start < end && event.counts(run.uses) {
            total += min(run.end, end) - max(run.start, start)
        }
        return total
    }
}
