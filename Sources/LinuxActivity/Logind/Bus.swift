import CSystemd
import Glibc
import SystemPackage

/// A connection to a D-Bus bus through sd-bus(3), each call wrapped once.
///
/// `@unchecked Sendable`: an sd-bus connection may be used by one thread at a time; every owner (the collector, a
/// focus source) keeps its own `Bus` and uses it from one task only.
public final class Bus: @unchecked Sendable {
    let handle: OpaquePointer
    private var slots: [OpaquePointer] = []
    private var signalSink: SignalSink?

    private init(handle: OpaquePointer) { self.handle = handle }

    deinit {
        for slot in slots { sd_bus_slot_unref(slot) }
        sd_bus_flush_close_unref(handle)
    }

    /// The system bus. The C function is `sd_bus_open_system(3)`.
    public static func system() throws(LinuxActivityError) -> Bus {
        var bus: OpaquePointer?
        let result = sd_bus_open_system(&bus)
        guard result >= 0, let bus else {
            throw LinuxActivityError(.bus, "cannot connect to the system bus", errno: Errno(systemdResult: result))
        }
        return Bus(handle: bus)
    }

    /// A bus at an address such as `unix:path=/run/user/1000/bus`. The C functions are `sd_bus_new(3)`,
    /// `sd_bus_set_address(3)`, `sd_bus_set_bus_client(3)` and `sd_bus_start(3)`.
    public static func connect(address: String) throws(LinuxActivityError) -> Bus {
        var bus: OpaquePointer?
        var result = sd_bus_new(&bus)
        guard result >= 0, let bus else {
            throw LinuxActivityError(.bus, "cannot create a bus connection", errno: Errno(systemdResult: result))
        }
        result = sd_bus_set_address(bus, address)
        if result >= 0 { result = sd_bus_set_bus_client(bus, 1) }
        if result >= 0 { result = sd_bus_start(bus) }
        guard result >= 0 else {
            sd_bus_unref(bus)
            throw LinuxActivityError(.bus, "cannot connect to the bus at \(address)", errno: Errno(systemdResult: result))
        }
        return Bus(handle: bus)
    }

    /// A boolean property. The C function is `sd_bus_get_property_trivial(3)`.
    public func boolProperty(destination: String, path: String, interface: String, name: String) -> Bool? {
        var value: Int32 = 0
        return csd_bus_get_bool(handle, destination, path, interface, name, &value) >= 0 ? value != 0 : nil
    }

    /// A `u` property. The C function is `sd_bus_get_property_trivial(3)`.
    public func uint32Property(destination: String, path: String, interface: String, name: String) -> UInt32? {
        var value: UInt32 = 0
        return csd_bus_get_u32(handle, destination, path, interface, name, &value) >= 0 ? value : nil
    }

    /// A `t` property. The C function is `sd_bus_get_property_trivial(3)`.
    public func uint64Property(destination: String, path: String, interface: String, name: String) -> UInt64? {
        var value: UInt64 = 0
        return csd_bus_get_u64(handle, destination, path, interface, name, &value) >= 0 ? value : nil
    }

    /// Calls a method without arguments and hands the reply to `read`. The C function is `sd_bus_call_method(3)`.
    public func call<Result>(
        destination: String, path: String, interface: String, method: String,
        read: (BusMessageReader) -> Result
    ) throws(LinuxActivityError) -> Result {
        var reply: OpaquePointer?
        let result = csd_bus_call_method_noargs(handle, destination, path, interface, method, &reply)
        guard result >= 0, let reply else {
            throw LinuxActivityError(
                .bus, "D-Bus call \(interface).\(method) on \(destination) failed", errno: Errno(systemdResult: result))
        }
        defer { sd_bus_message_unref(reply) }
        return read(BusMessageReader(message: reply))
    }

    /// Subscribes to signals matching `rule`; `process()` then returns their object paths.
    /// The C function is `sd_bus_add_match(3)`.
    public func addMatch(_ rule: String) throws(LinuxActivityError) {
        let sink = signalSink ?? SignalSink()
        signalSink = sink
        var slot: OpaquePointer?
        let result = csd_bus_add_match(handle, &slot, rule, { message, userdata, _ in
            guard let message, let userdata else { return 0 }
            let sink = Unmanaged<SignalSink>.fromOpaque(userdata).takeUnretainedValue()
            let path = sd_bus_message_get_path(message).map { String(cString: $0) } ?? ""
            let member = sd_bus_message_get_member(message).map { String(cString: $0) } ?? ""
            sink.received.append(BusSignal(path: path, member: member))
            return 0
        }, Unmanaged.passUnretained(sink).toOpaque())
        guard result >= 0, let slot else {
            throw LinuxActivityError(.bus, "cannot subscribe to \(rule)", errno: Errno(systemdResult: result))
        }
        slots.append(slot)
    }

    /// Dispatches everything the bus has received, without blocking, and returns the signals that matched.
    /// The C function is `sd_bus_process(3)`.
    public func process() -> [BusSignal] {
        while sd_bus_process(handle, nil) > 0 {}
        guard let sink = signalSink, !sink.received.isEmpty else { return [] }
        defer { sink.received.removeAll(keepingCapacity: true) }
        return sink.received
    }
}

/// A signal delivered to a match: its object path and member.
public struct BusSignal: Hashable, Sendable {
    public var path: String
    public var member: String
}

private final class SignalSink {
    var received: [BusSignal] = []
}

/// Reads values from a D-Bus message in order. The C functions are `sd_bus_message_read_basic(3)`,
/// `sd_bus_message_enter_container(3)` and `sd_bus_message_exit_container(3)`.
public struct BusMessageReader {
    let message: OpaquePointer

    /// Reads a string (`s`, `o` or `g`), or nil at the end of the container or on a type mismatch.
    public func string(_ type: Character = "s") -> String? {
        var value: UnsafePointer<CChar>?
        guard csd_bus_message_read_basic(message, CChar(type.asciiValue!), &value) > 0, let value else { return nil }
        return String(cString: value)
    }

    /// Reads a `u`, or nil.
    public func uint32() -> UInt32? {
        var value: UInt32 = 0
        return csd_bus_message_read_basic(message, CChar(UInt8(ascii: "u")), &value) > 0 ? value : nil
    }

    /// Reads a `b`, or nil.
    public func bool() -> Bool? {
        var value: Int32 = 0
        return csd_bus_message_read_basic(message, CChar(UInt8(ascii: "b")), &value) > 0 ? value != 0 : nil
    }

    /// Enters a container (`a`, `r`, `v`, `e`) with the given contents signature; false at its end.
    public func enter(_ type: Character, _ contents: String) -> Bool {
        sd_bus_message_enter_container(message, CChar(type.asciiValue!), contents) > 0
    }

    /// Leaves the current container.
    public func exit() { sd_bus_message_exit_container(message) }
}
