// Daemon benchmark (root): the daemon in this process, as `screentimed --system` would run, with 1,000 extra
// processes and a policy of 20 limits. A busy "game" runs as a regular user ($BENCH_GAME_USER) on a pseudo-terminal
// (its own session to the collector); one limit gives it 3 s. Prints:
//   daemon.shield_latency_ms  from the instant its use reaches the limit to the game stopped (state T)
//   daemon.exec_shield_ms     the slowest of five starts of the game while shielded, from the start to the stop: the
//                             loop wakes on the kernel's process events while anything is shielded
//   daemon.cpu_percent        CPU of the whole daemon over 60 s of 1-second sampling with the game shielded, once
//                             start-up is over (the daemon gives back start-up memory some ticks after starting), %
//                             of one core
//   daemon.rss_mib            resident memory at the end
import BenchmarkSupport
import Foundation
import Glibc
import Logging
import ScreenTimeDaemon
import ScreenTimeEngine
import ScreenTimeModel
import ServiceLifecycle

func spawn(_ argv: [String]) -> pid_t {
    var pid: pid_t = 0
    var arguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
    defer { for pointer in arguments { free(pointer) } }
    precondition(posix_spawn(&pid, argv[0], nil, nil, &arguments, environ) == 0, "cannot start \(argv[0])")
    return pid
}

func state(of pid: pid_t) -> Character? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = text.lastIndex(of: ")")
    else { return nil }
    return text[text.index(close, offsetBy: 2)]
}

guard getuid() == 0 else {
    print("daemon benchmark: needs root (a game run as another user, signals)")
    exit(2)
}
// The game's user: a regular account, as a guardian's default policy covers (uid 1000 and above, never `nobody`),
// named by $BENCH_GAME_USER (scripts/run-benchmarks.sh makes one).
guard let gameUser = ProcessInfo.processInfo.environment["BENCH_GAME_USER"], let gameAccount = getpwnam(gameUser),
    gameAccount.pointee.pw_uid >= 1000
else {
    print("daemon benchmark: $BENCH_GAME_USER must name a regular account (uid 1000 and above) to run the game as")
    exit(2)
}
let gameIDs = ["--reuid=\(gameAccount.pointee.pw_uid)", "--regid=\(gameAccount.pointee.pw_gid)", "--clear-groups"]
let seconds = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 60
// In /run, root's: a guardian daemon refuses a policy in a folder others may write (such as /tmp).
let directory = "/run/screentime-bench-\(getpid())"
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
try "while :; do :; done\n".write(toFile: directory + "/benchgame.sh", atomically: true, encoding: .utf8)
chmod(directory, 0o755)
chmod(directory + "/benchgame.sh", 0o755)
var policy = "[[limit]]\nname = \"game\"\napps = [\"benchgame.sh\"]\ndaily = \"3s\"\nshield = \"freeze\"\n"
for index in 2...20 { policy += "\n[[limit]]\nname = \"limit\(index)\"\napps = [\"app\(index)\"]\ndaily = \"1h\"\n" }
try policy.write(toFile: directory + "/policy.toml", atomically: true, encoding: .utf8)

var children: [pid_t] = []
for _ in 0..<1000 { children.append(spawn(["/bin/sleep", "600"])) }
// The game: the user's shell script on a terminal of its own, so the collector sees a session with it in front.
let game = spawn(
    ["/usr/bin/setpriv"] + gameIDs + [
        "--", "/usr/bin/script", "-qfc", "exec /bin/sh \(directory)/benchgame.sh", "/dev/null",
    ])
children.append(game)
defer {
    for pid in children { kill(pid, SIGKILL) }
    for pid in children { var status: Int32 = 0; waitpid(pid, &status, 0) }
    try? FileManager.default.removeItem(atPath: directory)
}

var settings = DaemonSettings.defaults(system: true)
settings.policyPath = directory + "/policy.toml"
settings.databasePath = directory + "/usage.sqlite"
settings.enforcementStatePath = directory + "/enforcement.json"
settings.tokenKeyPath = directory + "/token.key"
settings.users = nil
if let tick = ProcessInfo.processInfo.environment["BENCH_TICK_MS"].flatMap(Int.init) {
    settings.tickInterval = .milliseconds(tick)
}
var logger = Logger(label: "screentimed")
logger.logLevel = ProcessInfo.processInfo.environment["BENCH_LOG"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
let daemon = try Daemon(settings: settings, notifier: nil, logger: logger)
let group = ServiceGroup(services: daemon.services(logger: logger), logger: logger)
let started = monotonic()
let running = Task.detached { try await group.run() }

// The game's shell: the script exec'd by script(1)'s child.
var scriptShell: pid_t?
let found = monotonic()
while scriptShell == nil, monotonic() - found < .seconds(5) {
    usleep(10_000)
    for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
        guard let pid = pid_t(entry), let command = try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)
        else { continue }
        if command.contains("benchgame.sh"), !command.contains("script") { scriptShell = pid }
    }
}
guard let scriptShell else { fatalError("the game did not start") }
children.append(scriptShell)

var stoppedAt: Duration?
let waitStart = monotonic()
while stoppedAt == nil, monotonic() - waitStart < .seconds(20) {
    if state(of: scriptShell) == "T" { stoppedAt = monotonic() }
    usleep(500)
}
let reached = daemon.lastLimitReached
if ProcessInfo.processInfo.environment["BENCH_LOG"] != nil {
    print(
        "game shell \(scriptShell), stopped at \(String(describing: stoppedAt)), limit reached at \(String(describing: reached))"
    )
}
let latency = stoppedAt.flatMap { stopped in reached.map { stopped - .nanoseconds($0.nanoseconds) } }

// The game started anew while shielded: from its start to its stop, through the kernel's process events.
var execLatencies: [Duration] = []
for _ in 0..<5 {
    let spawnedAt = monotonic()
    let again = spawn(["/usr/bin/setpriv"] + gameIDs + ["--", "/bin/sh", directory + "/benchgame.sh"])
    children.append(again)
    while state(of: again) != "T", monotonic() - spawnedAt < .seconds(3) { usleep(200) }
    if state(of: again) == "T" { execLatencies.append(monotonic() - spawnedAt) }
    usleep(50_000)
}

if ProcessInfo.processInfo.environment["BENCH_LOG"] != nil {
    let before = cpuTime()
    var size = 0
    for _ in 0..<20 { size = (try? JSONEncoder().encode(daemon.engine.snapshot()))?.count ?? -1 }
    print("snapshot \(size) bytes, encode \(milliseconds(cpuTime() - before) / 20) ms")
}
// Start-up ends with the release of start-up memory some ticks after the start: the window opens two ticks after it.
let settled = started + settings.tickInterval * (EngineLoop.ticksBeforeRelease + 2)
if monotonic() < settled { usleep(UInt32(clamping: Int(milliseconds(settled - monotonic()) * 1000))) }
let cpuStart = cpuTime()
let wallStart = monotonic()
// A blocking sleep: a long Task.sleep has libdispatch wake its manager thread every second, which is not the daemon's.
sleep(UInt32(seconds))
let cpu = cpuTime() - cpuStart
let wall = monotonic() - wallStart
let rss = residentMiB()
await group.triggerGracefulShutdown()
_ = try? await running.value

print("daemon.shield_latency_ms \(latency.map { String(format: "%.2f", milliseconds($0)) } ?? "nan") ms")
let slowestExec = execLatencies.count == 5 ? execLatencies.max() : nil
print("daemon.exec_shield_ms \(slowestExec.map { String(format: "%.2f", milliseconds($0)) } ?? "nan") ms")
print("daemon.cpu_percent \(String(format: "%.4f", milliseconds(cpu) / milliseconds(wall) * 100)) %")
print("daemon.rss_mib \(String(format: "%.2f", rss)) MiB")
