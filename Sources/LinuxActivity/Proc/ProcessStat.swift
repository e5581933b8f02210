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
    /// Start time in clock ticks after boot (field 22).
    public var startTime: UInt64

    public var identity: ProcessIdentity { ProcessIdentity(pid: pid, startTime: startTime) }

    /// Parses the contents of `/proc/PID/stat`. `comm` may contain spaces and parentheses, so it is the text between
    /// the first `(` and the LAST `)`. Returns nil for malformed input.
    public init?(parsing bytes: some Collection<UInt8>) {
        let buffer = Array(bytes)
        guard let open = buffer.firstIndex(of: UInt8(ascii: "(")),
            let close = buffer.lastIndex(of: UInt8(ascii: ")")), open < close,
            let pid = Int32(parsingDecimal: buffer[..<open].dropLast(while: { $0 == UInt8(ascii: " ") }))
        else { return nil }
        command = String(decoding: buffer[(open + 1)..<close], as: UTF8.self)
        // Fields after comm, numbered from 3 (state) as in proc(5).
        var fields: [ArraySlice<UInt8>] = []
        fields.reserveCapacity(20)
        var index = close + 1
        while index < buffer.endIndex, fields.count < 20 {
            while index < buffer.endIndex, buffer[index] == UInt8(ascii: " ") || buffer[index] == UInt8(ascii: "\n") {
                index += 1
            }
            let start = index
            while index < buffer.endIndex, buffer[index] != UInt8(ascii: " "), buffer[index] != UInt8(ascii: "\n") {
                index += 1
            }
            if start < index { fields.append(buffer[start..<index]) }
        }
        // fields[0] = state (3), [1] = ppid (4), [2] = pgrp (5), [3] = session (6), [4] = tty_nr (7),
        // [5] = tpgid (8), [19] = starttime (22).
        guard fields.count == 20, fields[0].count == 1,
            let parent = Int32(parsingDecimal: fields[1]),
            let group = Int32(parsingDecimal: fields[2]),
            let session = Int32(parsingDecimal: fields[3]),
            let terminal = Int64(parsingDecimal: fields[4]),
            let foreground = Int32(parsingDecimal: fields[5]),
            let start = UInt64(parsingDecimal: fields[19])
        else { return nil }
        self.pid = ProcessID(pid)
        self.state = Character(Unicode.Scalar(fields[0].first!))
        self.parent = ProcessID(parent)
        self.processGroup = group
        self.session = session
        self.terminal = UInt32(truncatingIfNeeded: terminal)
        self.terminalForegroundGroup = foreground
        self.startTime = start
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
            let (sum, overflow2) = negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
            guard !overflow1, !overflow2 else { return nil }
            value = sum
            sawDigit = true
        }
        guard sawDigit else { return nil }
        self = value
    }
}
