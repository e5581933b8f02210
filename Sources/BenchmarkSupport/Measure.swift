import Glibc

// What the benchmarks measure with, in one place; plain libc calls only, so that measuring maps no code of its own
// worth counting (Foundation's file code would show in the resident memory measured).

/// CPU time of the whole process, all threads (`CLOCK_PROCESS_CPUTIME_ID`).
public func cpuTime() -> Duration {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
}

/// `CLOCK_MONOTONIC` as time since boot.
public func monotonic() -> Duration {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
}

public func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15
}

/// VmRSS of this process in MiB, from `/proc/self/status`; -1 when it can't be read.
public func residentMiB() -> Double {
    var buffer = [UInt8](repeating: 0, count: 8192)
    let descriptor = open("/proc/self/status", O_RDONLY)
    guard descriptor >= 0 else { return -1 }
    let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
    close(descriptor)
    guard count > 0 else { return -1 }
    let key = Array("VmRSS:".utf8)
    var index = 0
    while index + key.count < count, !buffer[index..<(index + key.count)].elementsEqual(key) { index += 1 }
    guard index + key.count < count else { return -1 }
    var kilobytes = 0
    for byte in buffer[(index + key.count)..<count] {
        if byte == UInt8(ascii: "\n") { break }
        if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { kilobytes = kilobytes * 10 + Int(byte - UInt8(ascii: "0")) }
    }
    return Double(kilobytes) / 1024
}
