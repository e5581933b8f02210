import Foundation
import LinuxActivity
import ManagedSettings
import ScreenTimeBus
import ScreenTimeModel
import Synchronization

/// Results of a report query as an `AsyncSequence`: Apple's `DeviceActivityResults`. A command-line program gets
/// the caller's use with `DeviceActivityResults<DeviceActivityData>(filter:)` and iterates it with `for await`.
/// The data comes from `screentimed` (`org.screentime.Usage1.Segments`) when iteration starts; when the daemon
/// can't be asked the sequence is empty and `error` says why.
public struct DeviceActivityResults<Element: Sendable & Hashable>: AsyncSequence, Sendable, Hashable {
    public typealias Failure = Never

    private let load: Loader

    /// Results already known.
    init(_ elements: [Element]) { load = Loader { .success(elements) } }

    private init(loader: Loader) { load = loader }

    /// The elements, asking the daemon if need be.
    ///
    /// - Throws: the daemon's refusal, or `.unavailable` when it can't be reached.
    public func elements() throws(ScreenTimeBusError) -> [Element] { try load.run().get() }

    /// Why the last load failed, if it did.
    public var error: ScreenTimeBusError? {
        if case .failure(let error) = load.run() { return error }
        return nil
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        var remaining: [Element]?
        let load: Loader

        public mutating func next() async -> Element? {
            if remaining == nil { remaining = (try? load.run().get()) ?? [] }
            return remaining?.isEmpty == false ? remaining?.removeFirst() : nil
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(remaining: nil, load: load) }

    /// Loads once, on first use, and keeps the outcome.
    final class Loader: Sendable, Hashable {
        private let body: @Sendable () -> Result<[Element], ScreenTimeBusError>
        private let outcome = Mutex<Result<[Element], ScreenTimeBusError>?>(nil)

        init(_ body: @escaping @Sendable () -> Result<[Element], ScreenTimeBusError>) { self.body = body }

        func run() -> Result<[Element], ScreenTimeBusError> {
            if let known = outcome.withLock({ $0 }) { return known }
            let loaded = body()
            outcome.withLock { $0 = loaded }
            return loaded
        }

        static func == (lhs: Loader, rhs: Loader) -> Bool { lhs === rhs }
        func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    }
}

extension DeviceActivityResults where Element == DeviceActivityData {
    /// The calling user's use that `filter` selects, from the daemon `connection` reaches.
    public init(filter: DeviceActivityFilter, connection: DaemonConnection = .shared) {
        self.init(loader: Loader { Result { () throws(ScreenTimeBusError) in try Self.query(filter, connection) } })
    }

    private static func query(_ filter: DeviceActivityFilter, _ connection: DaemonConnection)
        throws(ScreenTimeBusError) -> [DeviceActivityData]
    {
        let (segment, interval) = filter.segmentInterval.segmentAndInterval
        func milliseconds(_ date: Date) -> BusValue { .int64(Int64((date.timeIntervalSince1970 * 1000).rounded())) }
        // The daemon reports on at most `UsageSummary.maximumSegments` a call: a longer range is asked for in parts,
        // each ending where that many segments after its first one's start end.
        let component: Calendar.Component =
            switch segment {
            case "hourly": .hour
            case "daily": .day
            default: .weekOfYear
            }
        var summaries: [UsageSummary] = []
        var start = interval.start
        while start < interval.end {
            let first = Calendar.current.dateInterval(of: component, for: start)?.start ?? start
            let limit = Calendar.current.date(byAdding: component, value: UsageSummary.maximumSegments, to: first)
            let end = limit.map { $0 > start ? Swift.min($0, interval.end) : interval.end } ?? interval.end
            summaries += try BusJSON.decode(
                [UsageSummary].self,
                from: try connection.callForString(
                    .usage, "Segments", [.string(segment), milliseconds(start), milliseconds(end)]))
            start = end
        }
        let labels = try BusJSON.decode(
            [CatalogLabel].self, from: try connection.callForString(.catalog, "Applications"))
        let byToken = Dictionary(labels.map { ($0.token, $0) }, uniquingKeysWith: { first, _ in first })
        let categoryNames = Dictionary(
            labels.map { ($0.categoryToken, ScreenTimeModel.ActivityCategory(rawValue: $0.category)?.displayName) },
            uniquingKeysWith: { first, _ in first })
        let segments = summaries.map { summary in
            ActivitySegment(summary, filter: filter, labels: byToken, categoryNames: categoryNames)
        }
        let user = DeviceActivityData.User(nameComponents: nil, userID: getuid())
        let host = ProcessInfo.processInfo.hostName
        return [
            DeviceActivityData(
                user: user, device: .init(name: host), lastUpdatedDate: Date(),
                activitySegments: DeviceActivityResults<ActivitySegment>(segments))
        ]
    }
}

/// The part of `Catalog1.Applications`' JSON a report shows.
struct CatalogLabel: Decodable {
    var id: String
    var name: String
    var category: String
    var token: String
    var categoryToken: String
}

extension ActivitySegment {
    /// The segment a daemon's summary describes, keeping what `filter` selects.
    init(
        _ summary: UsageSummary, filter: DeviceActivityFilter, labels: [String: CatalogLabel],
        categoryNames: [String: String?]
    ) {
        var applicationsByCategory: [String: [ApplicationActivity]] = [:]
        var names = categoryNames
        for (token, seconds) in summary.applicationSeconds {
            let label = labels[token]
            let recorded = summary.applicationLabels?[token]
            let categoryToken = summary.applicationCategories?[token] ?? label?.categoryToken ?? ""
            let applicationToken = ApplicationToken(rawValue: token)
            guard filter.applications.isEmpty || filter.applications.contains(applicationToken),
                filter.categories.isEmpty || filter.categories.contains(ActivityCategoryToken(rawValue: categoryToken))
            else { continue }
            var application = Application(token: applicationToken)
            application.bundleIdentifier = label?.id ?? recorded?.id
            application.localizedDisplayName = label?.name ?? recorded?.name
            if (names[categoryToken] ?? nil) == nil {
                names[categoryToken] = recorded.flatMap {
                    ScreenTimeModel.ActivityCategory(rawValue: $0.category)?.displayName
                }
            }
            let category = CategoryActivity.Category(
                token: ActivityCategoryToken(rawValue: categoryToken), localizedDisplayName: names[categoryToken] ?? nil
            )
            applicationsByCategory[categoryToken, default: []].append(
                ApplicationActivity(
                    application: application, totalActivityDuration: seconds,
                    numberOfPickups: summary.applicationPickups?[token] ?? 0,
                    numberOfNotifications: summary.applicationNotifications?[token] ?? 0,
                    category: category))
        }
        let filtered = !filter.applications.isEmpty || !filter.categories.isEmpty
        let categories = applicationsByCategory.map { token, applications in
            let sum = applications.reduce(0) { $0 + $1.totalActivityDuration }
            return CategoryActivity(
                category: .init(
                    token: ActivityCategoryToken(rawValue: token), localizedDisplayName: names[token] ?? nil),
                totalActivityDuration: filtered ? sum : summary.categorySeconds[token] ?? sum,
                applications: DeviceActivityResults<ApplicationActivity>(
                    applications.sorted { $0.totalActivityDuration > $1.totalActivityDuration }))
        }
        self.init(
            dateInterval: DateInterval(start: summary.start, end: summary.end),
            totalActivityDuration: filtered
                ? categories.reduce(0) { $0 + $1.totalActivityDuration } : summary.totalSeconds,
            longestActivity: summary.longestActivity.map { DateInterval(start: $0.start, end: $0.end) },
            firstPickup: summary.firstPickup, totalPickupsWithoutApplicationActivity: summary.pickups,
            categories: DeviceActivityResults<CategoryActivity>(
                categories.sorted { $0.totalActivityDuration > $1.totalActivityDuration }))
    }
}
