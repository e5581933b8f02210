// Collector benchmark: starts 1,000 extra processes, then measures the CPU time of one cold full scan of /proc
// (stat, cgroup, exe, cmdline and app identity of every process), the CPU time of a steady-state tick once
// identities are cached (with proc connector events, and listing /proc), and the resident memory of this process after sampling once a second.
// Prints `collector.cold_scan_ms`, `collector.tick_ms` and `collector.rss_mib`.
import BenchmarkSupport
import Glibc
import LinuxActivity
import ScreenTimeModel

// `CollectorBenchmark --sampler SECONDS`: only sample once a second, then print the resident memory. The main run
// measures memory in such a child, so that the CPU measurements' many collectors don't count.
if CommandLine.arguments.dropFirst().first == "--sampler" {
    let seconds = Int(CommandLine.arguments.dropFirst(2).first ?? "") ?? 10
    let collector = Collector(tokenizer: Tokenizer(key: Array(repeating: 7, count: 32)))
    for _ in 0..<seconds {
        _ = collector.tick(now: monotonic(), wallNow: Int64(time(nil)))
        sleep(1)
    }
    print(residentMiB())
    exit(0)
}

let extra = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 1000
let seconds = Int(CommandLine.arguments.dropFirst(2).first ?? "") ?? 10
var children: [pid_t] = []
for _ in 0..<extra {
    var pid: pid_t = 0
    var argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sleep"), strdup("600"), nil]
    if posix_spawn(&pid, "/bin/sleep", nil, nil, &argv, environ) == 0 { children.append(pid) }
    for pointer in argv { free(pointer) }
}
defer {
    for pid in children { kill(pid, SIGKILL) }
    for pid in children { var status: Int32 = 0; waitpid(pid, &status, 0) }
}
usleep(300_000)

let tokenizer = Tokenizer(key: Array(repeating: 7, count: 32))
let collector = Collector(tokenizer: tokenizer)

// Cold: everything read and resolved for the first time, by a new collector each time (desktop entries are indexed
// before timing starts); the median of 15 scans.
var colds: [Duration] = []
for _ in 0..<15 {
    let fresh = Collector(tokenizer: tokenizer)
    _ = fresh.catalog(for: UserID(getuid()))
    let start = cpuTime()
    _ = fresh.tick(now: monotonic(), wallNow: Int64(time(nil)))
    colds.append(cpuTime() - start)
}
colds.sort()
let cold = colds[colds.count / 2]
_ = collector.tick(now: monotonic(), wallNow: Int64(time(nil)))
let processes = collector.table.entries.count

// Steady: median CPU time of 200 ticks with identities cached.
var ticks: [Duration] = []
for _ in 0..<200 {
    let start = cpuTime()
    _ = collector.tick(now: monotonic(), wallNow: Int64(time(nil)))
    ticks.append(cpuTime() - start)
}
ticks.sort()

// Without proc connector events (unprivileged on old kernels, or in a container) a tick reads the pids allocated
// since the last one, and lists /proc every 15 ticks; when probing is turned off, every tick lists /proc.
func medianTick(probing: Bool) -> Duration {
    let collector = Collector(tokenizer: tokenizer)
    collector.table.useProcessEvents = false
    collector.table.probesAllocatedPIDs = probing
    _ = collector.tick(now: monotonic(), wallNow: Int64(time(nil)))
    var ticks: [Duration] = []
    for _ in 0..<100 {
        let start = cpuTime()
        _ = collector.tick(now: monotonic(), wallNow: Int64(time(nil)))
        ticks.append(cpuTime() - start)
    }
    return ticks.sorted()[ticks.count / 2]
}
let listingTick = medianTick(probing: false)
let probingTick = medianTick(probing: true)

// Memory: a fresh process that samples once a second, as the daemon does.
var sampledMiB = -1.0
var pipeEnds: [Int32] = [0, 0]
pipe(&pipeEnds)
var actions = posix_spawn_file_actions_t()
posix_spawn_file_actions_init(&actions)
posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
var sampler: pid_t = 0
var samplerArguments: [UnsafeMutablePointer<CChar>?] =
    [strdup(CommandLine.arguments[0]), strdup("--sampler"), strdup(String(seconds)), nil]
if posix_spawn(&sampler, "/proc/self/exe", &actions, nil, &samplerArguments, environ) == 0 {
    close(pipeEnds[1])
    var output = [UInt8](repeating: 0, count: 64)
    let count = read(pipeEnds[0], &output, output.count)
    var status: Int32 = 0
    waitpid(sampler, &status, 0)
    sampledMiB = Double(String(decoding: output.prefix(max(0, count)), as: UTF8.self).filter { $0 != "\n" }) ?? -1
}

print("collector.processes \(processes) 1")
print("collector.cold_scan_ms \(milliseconds(cold)) ms")
print("collector.tick_ms \(milliseconds(ticks[ticks.count / 2])) ms")
print("collector.tick_listing_proc_ms \(milliseconds(listingTick)) ms")
print("collector.tick_probing_pids_ms \(milliseconds(probingTick)) ms")
print("collector.rss_mib \(sampledMiB) MiB")
