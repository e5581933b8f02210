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

// A user who switches apps every half minute leaves thousands of runs a day, each naming its apps by 64-character
// tokens; written as they are, a week of them made snapshots of several megabytes, rewritten every few seconds.
// So the encoded form names each distinct list of apps once and gives each run as three small numbers: the gap
// since the previous run's end, its length, and the index of its apps.
extension UsageLedger {
    private enum CodingKeys: String, CodingKey {
        case uses
        case runs
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let table = try container.decode([[AppUse]].self, forKey: .uses)
        let numbers = try container.decode([Int64].self, forKey: .runs)
        guard numbers.count.isMultiple(of: 3) else {
            throw DecodingError.dataCorruptedError(
                forKey: .runs, in: container, debugDescription: "runs must come as (gap, length, uses) triples")
        }
        var decoded: [Run] = []
        decoded.reserveCapacity(numbers.count / 3)
        var previousEnd: Int64 = 0
        for position in stride(from: 0, to: numbers.count, by: 3) {
            let length = numbers[position + 1]
            guard length >= 0, let index = Int(exactly: numbers[position + 2]), table.indices.contains(index) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .runs, in: container,
                    debugDescription: "run \(position / 3) has a negative length or names no list of apps")
            }
            let start = previousEnd &+ numbers[position]
            decoded.append(Run(start: start, end: start &+ length, uses: table[index]))
            previousEnd = start &+ length
        }
        runs = decoded
    }

    func encode(to encoder: any Encoder) throws {
        var table: [[AppUse]] = []
        var indices: [[AppUse]: Int] = [:]
        var numbers: [Int64] = []
        numbers.reserveCapacity(runs.count * 3)
        var previousEnd: Int64 = 0
        for run in runs {
            let index: Int
            if let known = indices[run.uses] {
                index = known
            } else {
                index = table.count
                indices[run.uses] = index
                table.append(run.uses)
            }
            // Wrapping arithmetic, undone exactly by the decoder's.
            numbers.append(run.start &- previousEnd)
            numbers.append(run.end &- run.start)
            numbers.append(Int64(index))
            previousEnd = run.end
        }
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(table, forKey: .uses)
        try container.encode(numbers, forKey: .runs)
    }
}
