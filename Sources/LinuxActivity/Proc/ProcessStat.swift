import CLinux
import Glibc
import ScreenTimeModel

/// The fields of `/proc/PID/stat` the collector uses (proc(5)).
public struct ProcessStat: Hashable, Sendable {
    public var pid: ProcessID
    /// `comm`: at most 15 bytes, chosen by the process itself (never trusted alone for identity).
    public var command: String
    /// One-letter state (`R`, `S`, `D`, `T`, `t`, `Z`, ...).
    public var state: Character
    public var parent: ProcessID
    public var processGroup: Int32
    public var session: Int32
    /// The controlling terminal as a device number (0 when none).
    public var terminal: UInt32
    /// The foreground process group of the controlling terminal (`tpgid`), or -1.
    public var terminalForegroundGroup: Int32
    /// How many threads the process has (`num_threads`, field 20), counting a main thread that has exited while
    /// others run on.
    public var threadCount: Int32
    /// Start time in clock ticks after boot (field 22).
    public var startTime: UInt64

    public var identity: ProcessIdentity { ProcessIdentity(pid: pid, startTime: startTime) }

    /// Whether the process's main thread has exited while other threads run on (`pthread_exit` in `main`): its state
    /// is `Z` and it still has more than one thread.
    public var runsWithoutItsMainThread: Bool { state == "Z" && threadCount > 1 }

    /// Reads and parses `/proc/PID/stat` under `procRoot` once, outside a process table (which reads into a buffer of
    /// its own); nil when the process is gone.
    static func read(of pid: ProcessID, procRoot: String) -> ProcessStat? {
        FileSystem.readBytes("\(procRoot)/\(pid.rawValue)/stat").flatMap { ProcessStat(parsing: $0) }
    }

    /// Parses the contents of `/proc/PID/stat`. `comm` may contain spaces and parentheses, so it is the text between
    /// the first `(` and the LAST `)`. Returns nil for malformed input.
    public init?(parsing bytes: some Collection<UInt8>) {
        let parsed =
            bytes.withContiguousStorageIfAvailable { Self(parsingBytes: UnsafeRawBufferPointer($0)) }
            ?? Array(bytes).withUnsafeBytes { Self(parsingBytes: $0) }
        guard let parsed else { return nil }
        self = parsed
    }

    /// The parser proper: one pass over the bytes up to field 22, allocating nothing (it runs every tick).
    private init?(parsingBytes bytes: UnsafeRawBufferPointer) {
        let space = UInt8(ascii: " "), newline = UInt8(ascii: "\n")
        guard let base = bytes.baseAddress, let openAddress = memchr(base, Int32(UInt8(ascii: "(")), bytes.count),
            let closeAddress = clinux_memrchr(base, Int32(UInt8(ascii: ")")), bytes.count)
        else { return nil }
        let open = base.distance(to: UnsafeRawPointer(openAddress))
        let close = base.distance(to: UnsafeRawPointer(closeAddress))
        guard open < close,
            let pid = Int32(parsingDecimal: bytes[..<open].dropLast(while: { $0 == space }))
        else { return nil }
        self.pid = ProcessID(pid)
        command = String(decoding: bytes[(open + 1)..<close], as: UTF8.self)
        (state, parent, processGroup, session, terminal, terminalForegroundGroup, threadCount, startTime) =
            (" ", ProcessID(0), 0, 0, 0, 0, 0, 0)
        // Fields after comm, numbered from 3 (state) as in proc(5): 3 state, 4 ppid, 5 pgrp, 6 session, 7 tty_nr,
        // 8 tpgid, 20 num_threads, 22 starttime.
        var index = close + 1
        var number = 2
        while number < 22 {
            while index < bytes.endIndex, bytes[index] == space || bytes[index] == newline { index += 1 }
            let start = index
            while index < bytes.endIndex, bytes[index] != space, bytes[index] != newline { index += 1 }
            guard start < index else { return nil }
            number += 1
            let field = bytes[start..<index]
            switch number {
            case 3:
                guard field.count == 1 else { return nil }
                state = Character(Unicode.Scalar(field[start]))
            case 4, 5, 6, 8, 20:
                guard let value = Int32(parsingDecimal: field) else { return nil }
                switch number {
                case 4: parent = ProcessID(value)
                case 5: processGroup = value
                case 6: session = value
                case 8: terminalForegroundGroup = value
                default: threadCount = value
                }
            case 7:
                guard let value = Int64(parsingDecimal: field) else { return nil }
                terminal = UInt32(truncatingIfNeeded: value)
            case 22:
                guard let value = UInt64(parsingDecimal: field) else { return nil }
                startTime = value
            default:
                break
            }
        }
    }
}

extension BidirectionalCollection where Element == UInt8 {
    func dropLast(while predicate: (UInt8) -> Bool) -> SubSequence {
        var end = endIndex
        while end > startIndex, predicate(self[index(before: end)]) { end = index(before: end) }
        return self[startIndex..<end]
    }
}

extension FixedWidthInteger {
    /// Parses an optionally signed ASCII decimal number without allocating. Nil on any other byte or overflow.
    init?(parsingDecimal bytes: some Collection<UInt8>) {
        var value: Self = 0
        var negative = false
        var sawDigit = false
        for (offset, byte) in bytes.enumerated() {
            if offset == 0, byte == UInt8(ascii: "-") {
                guard Self.isSigned else { return nil }
                negative = true
                continue
            }
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let digit = Self(byte - UInt8(ascii: "0"))
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) =
                negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
            guard !overflow1, !overflow2 else { return nil }
            value = sum
            sawDigit = true
        }
        guard sawDigit else { return nil }
        self = value
    }
}
