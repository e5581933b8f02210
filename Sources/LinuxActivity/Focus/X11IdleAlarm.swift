import CXCB
import Glibc

/// An alarm on the SYNC extension's `IDLETIME` counter, which the X server sends as an event when the time since the
/// last input crosses a threshold: the idle time is told as it changes instead of asked at every tick (Mutter's X11
/// idle monitor works so).
///
/// The alarm is a comparison, not a transition, so it fires at once when its test already holds when armed: armed to
/// fire once the display has been idle for `threshold` (the counter at or above it) and then, once that fired, once it
/// hasn't (the counter at or below `threshold` less a millisecond: input), no change between two events is missed.
struct X11IdleAlarm {
    let connection: X11Connection
    let alarm: xcb_sync_alarm_t
    let threshold: Duration

    /// Creates the alarm, armed to fire once the display has gone `threshold` without input; nil without the SYNC
    /// extension's `IDLETIME` counter.
    ///
    /// The corresponding C functions are `xcb_generate_id` and `xcb_sync_create_alarm`.
    init?(on connection: X11Connection, threshold: Duration) {
        guard let counter = connection.idleCounter?.counter else { return nil }
        self.connection = connection
        self.threshold = threshold
        alarm = xcb_generate_id(connection.connection)
        let value = Self.words(threshold)
        // A delta of zero: once fired, the alarm stays as it is (inactive) until armed again.
        var values: [UInt32] = [
            counter, XCB_SYNC_VALUETYPE_ABSOLUTE.rawValue, value.hi, value.lo,
            XCB_SYNC_TESTTYPE_POSITIVE_COMPARISON.rawValue, 0, 0, 1,
        ]
        let mask =
            XCB_SYNC_CA_COUNTER.rawValue | XCB_SYNC_CA_VALUE_TYPE.rawValue | XCB_SYNC_CA_VALUE.rawValue
            | XCB_SYNC_CA_TEST_TYPE.rawValue | XCB_SYNC_CA_DELTA.rawValue | XCB_SYNC_CA_EVENTS.rawValue
        _ = xcb_sync_create_alarm(connection.connection, alarm, mask, &values)
        connection.flush()
    }

    /// Arms the alarm again: to fire once the display has gone `threshold` without input (`whenIdle`), or at the next
    /// input after that (the counter below `threshold`).
    ///
    /// The corresponding C function is `xcb_sync_change_alarm`.
    func arm(whenIdle: Bool) {
        // The protocol's comparisons include equality: "below" is at or below a millisecond less.
        let value = Self.words(whenIdle ? threshold : threshold - .milliseconds(1))
        let test = whenIdle ? XCB_SYNC_TESTTYPE_POSITIVE_COMPARISON : XCB_SYNC_TESTTYPE_NEGATIVE_COMPARISON
        var values: [UInt32] = [value.hi, value.lo, test.rawValue]
        _ = xcb_sync_change_alarm(
            connection.connection, alarm, XCB_SYNC_CA_VALUE.rawValue | XCB_SYNC_CA_TEST_TYPE.rawValue, &values)
        connection.flush()
    }

    /// `duration` in milliseconds as the protocol's 64-bit value: high word (signed) and low word.
    private static func words(_ duration: Duration) -> (hi: UInt32, lo: UInt32) {
        let milliseconds = max(1, duration.wholeMilliseconds)
        return (UInt32(truncatingIfNeeded: milliseconds >> 32), UInt32(truncatingIfNeeded: milliseconds))
    }
}

extension X11Connection {
    /// The SYNC extension's `IDLETIME` system counter and first event code, after initializing the extension; nil
    /// when the server lacks either.
    ///
    /// The corresponding C functions are `xcb_get_extension_data`, `xcb_sync_initialize`,
    /// `xcb_sync_list_system_counters` and their replies.
    static func idleCounter(of connection: OpaquePointer) -> (counter: xcb_sync_counter_t, eventBase: UInt8)? {
        guard let data = xcb_get_extension_data(connection, cxcb_sync_extension()), data.pointee.present != 0 else {
            return nil
        }
        let eventBase = data.pointee.first_event
        guard let version = xcb_sync_initialize_reply(connection, xcb_sync_initialize(connection, 3, 1), nil) else {
            return nil
        }
        free(version)
        let cookie = xcb_sync_list_system_counters(connection)
        guard let reply = xcb_sync_list_system_counters_reply(connection, cookie, nil) else { return nil }
        defer { free(reply) }
        // Read from the reply's bytes: libxcb's accessor places a counter's name after the C struct's padding (16
        // bytes) where the protocol has it after 14 (counter, resolution, name length), cutting two letters off.
        let bytes = UnsafeRawBufferPointer(start: reply, count: 32 + Int(reply.pointee.length) * 4)
        var offset = 32
        for _ in 0..<reply.pointee.counters_len {
            guard offset + 14 <= bytes.count else { break }
            let counter = bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
            let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt16.self))
            guard offset + 14 + length <= bytes.count else { break }
            if String(decoding: bytes[(offset + 14)..<(offset + 14 + length)], as: UTF8.self) == "IDLETIME" {
                return (counter, eventBase)
            }
            offset += (14 + length + 3) & ~3
        }
        return nil
    }
}
