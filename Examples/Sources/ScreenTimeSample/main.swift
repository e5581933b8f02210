import ExampleSupport
import Foundation

// ScreenTimeSample (Apple's sample of the same name, without SwiftUI): reports of the user's use, total and per
// app, daily and weekly, with the top apps. `show` asks the app's report extension (this program, run with
// --context) to render them; `data` reads the same use directly, as a command-line program would.
//
//   screentime-sample show|data [--week]

extension DeviceActivityReport.Context {
    static let totalActivity = Self("Total Activity")
    static let topApps = Self("Top Apps")
}

struct TotalActivityReport: DeviceActivityReportScene {
    let context: DeviceActivityReport.Context = .totalActivity
    let content: (String) -> String

    func makeConfiguration(representing data: DeviceActivityResults<DeviceActivityData>) async -> String {
        let total = await data.flatMap { $0.activitySegments }.reduce(0) { $0 + $1.totalActivityDuration }
        return "\(Int(total.rounded())) s"
    }
}

struct TopAppsReport: DeviceActivityReportScene {
    let context: DeviceActivityReport.Context = .topApps
    let content: ([(String, TimeInterval)]) -> String

    func makeConfiguration(representing data: DeviceActivityResults<DeviceActivityData>) async -> [(String, TimeInterval)] {
        var byApp: [String: TimeInterval] = [:]
        for await day in data {
            for await segment in day.activitySegments {
                for await category in segment.categories {
                    for await activity in category.applications {
                        let name = activity.application.localizedDisplayName ?? activity.application.bundleIdentifier ?? "?"
                        byApp[name, default: 0] += activity.totalActivityDuration
                    }
                }
            }
        }
        return byApp.sorted { $0.value > $1.value }.prefix(5).map { ($0.key, $0.value) }
    }
}

struct SampleReports: DeviceActivityReportExtension {
    var body: some DeviceActivityReportScene {
        TotalActivityReport { "Total Activity: \($0)" }
        TopAppsReport { apps in
            "Top Apps:" + apps.map { "\n  \($0.0): \(Int($0.1.rounded())) s" }.joined()
        }
    }
}

let app = ExampleApp(name: "screentime-sample")
if CommandLine.arguments.contains("--context") { await SampleReports.main() }
let calendar = Calendar.current
let now = Date()
let week = app.options["week"] != nil
let period =
    week
    ? calendar.dateInterval(of: .weekOfYear, for: now)! : DateInterval(start: calendar.startOfDay(for: now), end: now)
let filter = DeviceActivityFilter(segment: week ? .weekly(during: period) : .daily(during: period))
switch CommandLine.arguments.dropFirst().first {
case "show":
    await app.authorize()
    for context in [DeviceActivityReport.Context.totalActivity, .topApps] {
        do { print(try await DeviceActivityReport(context, filter: filter).render(), terminator: "") } catch {
            ExampleApp.fail("\(error)")
        }
    }
case "data":
    await app.authorize()
    let results = DeviceActivityResults<DeviceActivityData>(filter: filter)
    if let error = results.error { ExampleApp.fail("\(error)") }
    for await data in results {
        for await segment in data.activitySegments {
            print("segment \(segment.dateInterval.start) total \(Int(segment.totalActivityDuration.rounded())) s")
            for await category in segment.categories {
                for await activity in category.applications {
                    print(
                        "app \(activity.application.bundleIdentifier ?? "?") \(activity.totalActivityDuration) s "
                            + "pickups \(activity.numberOfPickups) notifications \(activity.numberOfNotifications) category "
                            + "\(category.category.localizedDisplayName ?? "?")")
                }
            }
        }
    }
default:
    ExampleApp.fail("usage: screentime-sample show|data [--week]")
}
