// Report benchmark: a ledger file holding a year of synthetic use as the daemon writes it (10 h of use a day, an app
// switch every ~30 s, 40 apps in 8 categories, two sessions, pickups, their labels, notifications, shields and limits),
// then the real `screentime` executable started anew for each run, with the OS file cache warm. Prints:
//   report.week_cli_ms  the median wall time of `screentime report --week` (whole process; by app)
//   report.year_cli_ms  the median wall time of `screentime report --from <a year ago> --by app`
// The first run of each is not measured: it makes the daily rollups of closed days (the daemon's ledger keeps them
// from then on). Usage: ReportBenchmark [path/to/screentime] [runs]
import BenchmarkSupport
import Foundation
import GRDB
import Glibc
import ScreenTimeModel
import UsageStore

let arguments = CommandLine.arguments
let executable =
    arguments.count > 1
    ? arguments[1]
    : URL(fileURLWithPath: arguments[0]).deletingLastPathComponent().appendingPathComponent("screentime").path
let runs = arguments.count > 2 ? Int(arguments[2]) ?? 7 : 7
guard FileManager.default.isExecutableFile(atPath: executable) else {
    print("report benchmark: no screentime executable at \(executable)")
    exit(1)
}
let directory = "/tmp/screentime-report-bench-\(getpid())"
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
// REPORT_BENCHMARK_KEEP=1 keeps the ledger (its path is printed), to look at it after.
let keep = ProcessInfo.processInfo.environment["REPORT_BENCHMARK_KEEP"] == "1"
defer { if !keep { try? FileManager.default.removeItem(atPath: directory) } }
let path = directory + "/usage.sqlite"

// A year of days ending today, local time.
let calendar = Calendar.current
let today = calendar.startOfDay(for: Date())
let firstDay = calendar.date(byAdding: .day, value: -364, to: today)!
let categories = Array(ActivityCategory.allCases.prefix(8))
let apps = (0..<40).map { index in
    (
        id: "org.example.App\(index)", token: "app-token-\(index)", category: categories[index % categories.count],
        categoryToken: "category-token-\(categories[index % categories.count].rawValue)"
    )
}
let user = Int64(getuid())
let started = monotonic()
let database = try UsageDatabase.open(at: path)
var intervalCount = 0
var random = SystemRandomNumberGenerator()
try database.writer.write { db in
    for app in apps {
        try AppLabelRecord(
            token: ApplicationToken(rawValue: app.token), appID: AppID(app.id),
            name: "App \(app.id.dropFirst("org.example.App".count))",
            category: app.category, categoryToken: ActivityCategoryToken(rawValue: app.categoryToken), updatedAt: Date()
        ).upsert(db)
    }
    let interval = try db.makeStatement(
        sql: """
            INSERT INTO usageInterval (sessionRowID, appToken, categoryToken, startMilliseconds, endMilliseconds,
                                       durationMilliseconds) VALUES (?, ?, ?, ?, ?, ?)
            """)
    let pickup = try db.makeStatement(
        sql: "INSERT INTO pickup (sessionRowID, appToken, wallMilliseconds) VALUES (?, ?, ?)")
    var day = firstDay
    var dayNumber = 0
    while day <= today {
        // Two sessions a day (a boot each), 08:00–13:00 and 15:00–20:00 with breaks: about 10 h of use.
        for (part, hour) in [8, 15].enumerated() {
            try db.execute(
                sql: "INSERT INTO loginSession (bootID, sessionID, uid) VALUES (?, ?, ?)",
                arguments: ["boot-\(dayNumber)", "s\(part)", user])
            let session = db.lastInsertedRowID
            var time = Int64(calendar.date(byAdding: .hour, value: hour, to: day)!.timeIntervalSince1970 * 1000)
            let end = time + 5 * 3_600_000
            while time < end && Double(time) / 1000 < Date().timeIntervalSince1970 {
                let app = apps[Int.random(in: 0..<apps.count, using: &random)]
                let length = Int64.random(in: 10_000...50_000, using: &random)
                try interval.execute(arguments: [session, app.token, app.categoryToken, time, time + length, length])
                intervalCount += 1
                if Int.random(in: 0..<20, using: &random) == 0 {
                    try pickup.execute(arguments: [session, app.token, time])
                }
                time += length
            }
        }
        try DailyLimitRecord(
            user: UserID(UInt32(user)),
            day: String(
                format: "%04d-%02d-%02d", calendar.component(.year, from: day), calendar.component(.month, from: day),
                calendar.component(.day, from: day)),
            limit: "games", seconds: 3600, recordedAt: day
        ).upsert(db)
        var warning = NotificationRecord(
            user: UserID(UInt32(user)), time: calendar.date(byAdding: .hour, value: 18, to: day)!, kind: .warning,
            limit: "games", title: "5 min left for games")
        try warning.insert(db)
        var shield = ShieldIntervalRecord(
            user: UserID(UInt32(user)), kind: .application, token: apps[0].token,
            start: calendar.date(byAdding: .hour, value: 19, to: day)!,
            end: calendar.date(byAdding: .hour, value: 20, to: day)!,
            duration: .seconds(3600))
        try shield.insert(db)
        day = calendar.date(byAdding: .day, value: 1, to: day)!
        dayNumber += 1
    }
}
let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
print(
    "ledger\(keep ? " " + path : ""): \(intervalCount) intervals over 365 days, \(size / 1_048_576) MiB, built in "
        + String(format: "%.1f", milliseconds(monotonic() - started) / 1000) + " s")

/// Runs the executable with `extra` arguments once; its wall time, or nil when it failed.
func run(_ extra: [String]) -> Duration? {
    let argv =
        [executable, "report"] + extra + [
            "--database", path, "--token-key", directory + "/token.key", "--format", "json",
        ]
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    defer { posix_spawn_file_actions_destroy(&actions) }
    var pid: pid_t = 0
    var pointers: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
    defer { for pointer in pointers { free(pointer) } }
    let before = monotonic()
    guard posix_spawn(&pid, executable, &actions, nil, &pointers, environ) == 0 else { return nil }
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    let elapsed = monotonic() - before
    return status == 0 ? elapsed : nil
}

func median(_ extra: [String]) -> Double? {
    guard let first = run(extra) else { return nil }
    print(
        "\(extra.joined(separator: " ")): first run (makes the rollups) \(String(format: "%.1f", milliseconds(first))) ms"
    )
    var times: [Double] = []
    for _ in 0..<runs {
        guard let time = run(extra) else { return nil }
        times.append(milliseconds(time))
    }
    times.sort()
    return times[times.count / 2]
}

let formatter = DateFormatter()
formatter.locale = Locale(identifier: "en_US_POSIX")
formatter.dateFormat = "yyyy-MM-dd"
let week = median(["--week"])
let year = median(["--from", formatter.string(from: firstDay), "--by", "app"])
print("report.week_cli_ms \(week.map { String(format: "%.1f", $0) } ?? "nan") ms")
print("report.year_cli_ms \(year.map { String(format: "%.1f", $0) } ?? "nan") ms")
if week == nil || year == nil { exit(1) }
