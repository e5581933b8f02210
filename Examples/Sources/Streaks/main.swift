import ExampleSupport
import Foundation

// Streaks: tasks to decrease screen time (stay under a limit on the picked apps until the interval ends) or to
// increase it (reach a goal on them before it ends), with a warning a minute before the limit or goal. The monitor
// extension (this program, run by the daemon with --callback) marks each task complete or missed.
//
//   streaks start --task NAME --kind decrease|increase --selection FILE --goal SECONDS --interval SECONDS
//                 [--warning SECONDS]
//   streaks show        every task and its mark

let app = ExampleApp(name: "streaks")

/// A task's kind and mark, kept in the state folder.
struct Task: Codable {
    var kind: String
    var mark: String?
}

func path(of task: String) -> String { app.stateFolder + "/task-\(task).json" }

func load(_ task: String) -> Task? {
    FileManager.default.contents(atPath: path(of: task)).flatMap { try? JSONDecoder().decode(Task.self, from: $0) }
}

func mark(_ task: String, _ mark: String) {
    guard var saved = load(task), saved.mark == nil else { return }
    saved.mark = mark
    FileManager.default.createFile(atPath: path(of: task), contents: try? JSONEncoder().encode(saved))
    app.record("\(task) \(mark)")
}

final class StreaksMonitor: DeviceActivityMonitor {
    override func eventWillReachThresholdWarning(_ event: DeviceActivityEvent.Name, activity: DeviceActivityName) {
        app.record("\(activity.rawValue) warning")
    }

    override func eventDidReachThreshold(_ event: DeviceActivityEvent.Name, activity: DeviceActivityName) {
        mark(activity.rawValue, load(activity.rawValue)?.kind == "increase" ? "complete" : "missed")
    }

    override func intervalDidEnd(for activity: DeviceActivityName) {
        mark(activity.rawValue, load(activity.rawValue)?.kind == "increase" ? "missed" : "complete")
    }
}

if CommandLine.arguments.contains(where: { $0.hasPrefix("--callback") }) {
    await DeviceActivityMonitorMain.run(StreaksMonitor())
}
switch CommandLine.arguments.dropFirst().first {
case "start":
    guard let task = app.options["task"], !task.isEmpty else { ExampleApp.fail("--task NAME is missing") }
    guard let kind = app.options["kind"], ["decrease", "increase"].contains(kind) else {
        ExampleApp.fail("--kind must be decrease or increase")
    }
    await app.authorize()
    let selection = app.selection()
    FileManager.default.createFile(atPath: path(of: task), contents: try JSONEncoder().encode(Task(kind: kind)))
    let event = DeviceActivityEvent(
        applications: selection.applicationTokens, categories: selection.categoryTokens,
        threshold: DateComponents(second: app.seconds("goal", default: 3600)))
    app.startMonitoring(
        DeviceActivityName(task),
        during: ExampleApp.schedule(
            startingIn: 0, lasting: app.seconds("interval", default: 86_400), warning: app.seconds("warning", default: 60)),
        events: [DeviceActivityEvent.Name(kind): event])
    print("task \(task) (\(kind)) started")
case "show":
    for activity in DeviceActivityCenter().activities.map(\.rawValue).sorted() {
        print("\(activity): \(load(activity)?.mark ?? "open")")
    }
default:
    ExampleApp.fail("usage: streaks start --task NAME --kind decrease|increase --selection FILE --goal S --interval S")
}
