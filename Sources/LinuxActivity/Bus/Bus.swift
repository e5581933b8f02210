import CSystemd
import Glibc
import ScreenTimeModel
import SystemPackage

/// A connection to a D-Bus bus through sd-bus(3): method calls with typed arguments, properties, signal matches,
/// exported objects, well-known names and a non-blocking event loop step. Every sd-bus connection function the
/// project uses is wrapped here once; messages are `BusMessage`s, their arguments `BusValue`s.
///
/// Match and object handlers run inside `process()`, on the thread that calls it.
public final class Bus: @unchecked Sendable {
    // Invariant: sd-bus objects are not thread-safe. A Bus is used by one thread at a time: its owner keeps it on one
    // task or thread (logind's reader, a focus source's event thread once its initialiser returns) or behind a lock
    // (the desktop notifier). Nothing else touches `handle`, the slots or the handlers.
    package let handle: OpaquePointer
    private var slots: [OpaquePointer] = []
    private var handlers: [Unmanaged<HandlerBox>] = []
    /// What the connection reaches, for messages: `the system bus` or `the bus at ADDRESS`.
    private let peer: String

    init(handle: OpaquePointer, peer: String) {
        self.handle = handle
        self.peer = peer
    }

    deinit {
        for slot in slots { sd_bus_slot_unref(slot) }
        for handler in handlers { handler.release() }
        sd_bus_flush_close_unref(handle)
    }

    /// The system bus.
    ///
    /// The C function is `sd_bus_open_system(3)`.
    public static func system() throws(LinuxActivityError) -> Bus {
        var bus: OpaquePointer?
        let result = sd_bus_open_system(&bus)
        guard result >= 0, let bus else {
            throw LinuxActivityError(.bus, "cannot connect to the system bus", errno: Errno(systemdResult: result))
        }
        return Bus(handle: bus, peer: "the system bus")
    }

    /// A client connection to the bus at `address` (`unix:path=/run/user/1000/bus`, `unixexec:…`), hello said.
    ///
    /// The C functions are `sd_bus_new(3)`, `sd_bus_set_address(3)`, `sd_bus_set_bus_client(3)` and
    /// `sd_bus_start(3)`; `sd_bus_unref(3)` on failure.
    public static func connect(address: String) throws(LinuxActivityError) -> Bus {
        try open(address: address, monitor: false)
    }

    private static func open(address: String, monitor: Bool) throws(LinuxActivityError) -> Bus {
        var bus: OpaquePointer?
        var result = sd_bus_new(&bus)
        guard result >= 0, let bus else {
            throw LinuxActivityError(.bus, "cannot create a bus connection", errno: Errno(systemdResult: result))
        }
        if monitor { result = sd_bus_set_monitor(bus, 1) }
        if result >= 0 { result = sd_bus_set_address(bus, address) }
        if result >= 0 { result = sd_bus_set_bus_client(bus, 1) }
        if result >= 0 { result = sd_bus_start(bus) }
        guard result >= 0 else {
            sd_bus_unref(bus)
            throw LinuxActivityError(
                .bus, "cannot connect to the bus at \(address)", errno: Errno(systemdResult: result))
        }
        return Bus(handle: bus, peer: "the bus at \(address)")
    }

    /// A monitor of the bus at `address`: after the hello, `BecomeMonitor` with `rules`, so the bus sends this
    /// connection a copy of every message the rules match (whoever it is for) and it may send nothing more. Read the
    /// copies with `nextMonitored()`. The bus lets only its owner's uid (or root) monitor it.
    ///
    /// The C functions are `sd_bus_new(3)`, `sd_bus_set_monitor(3)`, `sd_bus_set_address(3)`,
    /// `sd_bus_set_bus_client(3)` and `sd_bus_start(3)`.
    public static func monitor(address: String, rules: [String]) throws(LinuxActivityError) -> Bus {
        let monitor = try open(address: address, monitor: true)
        _ = try monitor.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
            interface: "org.freedesktop.DBus.Monitoring", member: "BecomeMonitor",
            arguments: [.array(elementSignature: "s", rules.map(BusValue.string)), .uint32(0)])
        return monitor
    }

    /// The next message a monitor received, without blocking; nil when none is pending. Throws when the
    /// connection is lost.
    ///
    /// The C function is `sd_bus_process(3)`.
    public func nextMonitored() throws(LinuxActivityError) -> BusMessage? {
        while true {
            var message: OpaquePointer?
            let result = sd_bus_process(handle, &message)
            guard result >= 0 else {
                throw LinuxActivityError(.bus, "lost \(peer)", errno: Errno(systemdResult: result))
            }
            if let message { return BusMessage(taking: message) }
            if result == 0 { return nil }
        }
    }

    /// The process id of the connection `name` (`:1.42`), as the bus driver knows it; nil when it is gone.
    public func processID(ofConnection name: String, timeout: Duration? = nil) -> ProcessID? {
        let reply = try? call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "GetConnectionUnixProcessID", arguments: [.string(name)], timeout: timeout)
        return reply?.readAll().first?.uint32Value.map { ProcessID(Int32(bitPattern: $0)) }
    }

    /// The unique names (`:1.42`) of the connections on the bus; nil when the bus driver did not answer.
    public func connectionNames(timeout: Duration? = nil) -> [String]? {
        let reply = try? call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "ListNames", timeout: timeout)
        guard case .array(_, let names)? = reply?.readAll().first else { return nil }
        return names.compactMap(\.stringValue).filter { $0.hasPrefix(":") }
    }

    /// The uid the connection `name` (`:1.42`) runs as, as the bus driver knows it; nil when it is gone.
    public func unixUser(ofConnection name: String, timeout: Duration? = nil) -> UInt32? {
        let reply = try? call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "GetConnectionUnixUser", arguments: [.string(name)], timeout: timeout)
        return reply?.readAll().first?.uint32Value
    }

    /// The bus socket, to wait on with `poll(2)` for `POLLIN` before calling `process()`.
    ///
    /// The C function is `sd_bus_get_fd(3)`.
    public var fileDescriptor: FileDescriptor { FileDescriptor(rawValue: sd_bus_get_fd(handle)) }

    /// Handles one pending incoming message, running the match and object handlers it concerns, without blocking;
    /// returns false when nothing was pending. Throws when the connection is lost.
    ///
    /// The C function is `sd_bus_process(3)`.
    public func process() throws(LinuxActivityError) -> Bool {
        let result = sd_bus_process(handle, nil)
        guard result >= 0 else {
            throw LinuxActivityError(.bus, "lost \(peer)", errno: Errno(systemdResult: result))
        }
        return result > 0
    }

    /// Handles every message already received or queued (`process()` until nothing is pending), without blocking.
    /// Throws when the connection is lost.
    public func processPending() throws(LinuxActivityError) {
        while try process() {}
    }

    /// Writes out queued messages, blocking until they are sent.
    ///
    /// The C function is `sd_bus_flush(3)`.
    public func flush() {
        _ = sd_bus_flush(handle)
    }

    /// Calls `interface.member` on `destination` at `path` with `arguments` and waits up to `timeout` (nil: sd-bus's
    /// default, 25 s) for the reply, whose arguments are then read from the returned message. With `autoStart` false
    /// the bus does not start a service that owns no name yet (it answers `ServiceUnknown` instead).
    ///
    /// Throws `.busMessage` when the call cannot be built, and `.bus` with the `remoteError` the peer (or sd-bus, for
    /// a timeout or a lost connection) answered with when it fails.
    ///
    /// The C functions are `sd_bus_message_new_method_call(3)`, `sd_bus_message_set_auto_start(3)` and
    /// `sd_bus_call(3)`.
    public func call(
        destination: String, path: String, interface: String, member: String, arguments: [BusValue] = [],
        timeout: Duration? = nil, autoStart: Bool = true
    ) throws(LinuxActivityError) -> BusMessage {
        var created: OpaquePointer?
        var result = sd_bus_message_new_method_call(handle, &created, destination, path, interface, member)
        guard result >= 0, let created else {
            throw LinuxActivityError(
                .busMessage, "cannot build \(interface).\(member)", errno: Errno(systemdResult: result))
        }
        let message = BusMessage(taking: created)
        if !autoStart { _ = sd_bus_message_set_auto_start(created, 0) }
        result = message.append(arguments)
        guard result >= 0 else {
            throw LinuxActivityError(
                .busMessage, "cannot build \(interface).\(member)", errno: Errno(systemdResult: result))
        }
        var microseconds: UInt64 = 0
        if let timeout {
            let (seconds, attoseconds) = timeout.components
            microseconds = UInt64(max(0, seconds)) * 1_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000_000)
        }
        let outcome = withBusError { (error: inout sd_bus_error) -> Result<BusMessage, LinuxActivityError> in
            var reply: OpaquePointer?
            let result = sd_bus_call(handle, message.pointer, microseconds, &error, &reply)
            if result >= 0, let reply { return .success(BusMessage(taking: reply)) }
            let name = error.name.map { String(cString: $0) }
            let text = error.message.map { String(cString: $0) } ?? ""
            return .failure(
                LinuxActivityError(
                    .bus, "\(destination) \(interface).\(member) failed: \(name ?? "error") \(text)",
                    errno: Errno(systemdResult: result),
                    remoteError: name.map { LinuxActivityError.RemoteError(name: $0, message: text) }))
        }
        return try outcome.get()
    }

    /// The value of the property `interface.name` of the object at `path` on `destination` (the variant's content).
    ///
    /// Throws like `call`, and `.busMessage` when the reply holds no variant.
    public func property(destination: String, path: String, interface: String, name: String)
        throws(LinuxActivityError) -> BusValue
    {
        let reply = try call(
            destination: destination, path: path, interface: "org.freedesktop.DBus.Properties", member: "Get",
            arguments: [.string(interface), .string(name)])
        guard case .variant(let value)? = reply.readAll().first else {
            throw LinuxActivityError(.busMessage, "\(destination) \(interface).\(name) is not a property")
        }
        return value
    }

    /// The unique name (`:1.42`) that owns the well-known `name`, or nil when nobody does (or the bus did not answer
    /// within `timeout`).
    public func nameOwner(_ name: String, timeout: Duration? = nil) -> String? {
        let reply = try? call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "GetNameOwner", arguments: [.string(name)], timeout: timeout)
        return reply?.readString()
    }

    /// Calls `handler` with every message matching the D-Bus match `rule`, from inside `process()`, while this
    /// connection lives.
    ///
    /// The C function is `sd_bus_add_match(3)`.
    public func addMatch(_ rule: String, _ handler: @escaping (BusMessage) -> Void) throws(LinuxActivityError) {
        let box = HandlerBox { message in
            handler(message)
            return false
        }
        try addSlot(box) { (slot, box) in
            sd_bus_add_match(handle, &slot, rule, Bus.dispatch, box)
        } failure: {
            "cannot subscribe to \(rule)"
        }
    }

    /// Serves method calls to the object at `path`, from inside `process()`: `handler` answers the call (with
    /// `BusMessage.reply(_:)` or `replyError(name:message:)`) and returns true, or returns false to let sd-bus answer
    /// `UnknownMethod`.
    ///
    /// The C function is `sd_bus_add_object(3)`.
    public func addObject(_ path: String, _ handler: @escaping (BusMessage) -> Bool) throws(LinuxActivityError) {
        try addSlot(HandlerBox(handler)) { (slot, box) in
            sd_bus_add_object(handle, &slot, path, Bus.dispatch, box)
        } failure: {
            "cannot export \(path)"
        }
    }

    /// Takes the well-known `name`; fails when another connection owns it.
    ///
    /// The C function is `sd_bus_request_name(3)`.
    public func requestName(_ name: String) throws(LinuxActivityError) {
        let result = sd_bus_request_name(handle, name, 0)
        guard result >= 0 else {
            throw LinuxActivityError(.bus, "cannot own \(name) on \(peer)", errno: Errno(systemdResult: result))
        }
    }

    /// Gives the well-known `name` back; nothing happens when this connection does not own it.
    ///
    /// The C function is `sd_bus_release_name(3)`.
    public func releaseName(_ name: String) {
        _ = sd_bus_release_name(handle, name)
    }

    /// Sends the signal `interface.member` from the object at `path` with `arguments`: to every connection whose
    /// match rules take it, or only to the connection `destination` (`:1.42`) when one is given.
    ///
    /// The C functions are `sd_bus_message_new_signal(3)` and `sd_bus_message_set_destination(3)`.
    public func emitSignal(
        path: String, interface: String, member: String, arguments: [BusValue] = [], destination: String? = nil
    ) throws(LinuxActivityError) {
        var created: OpaquePointer?
        var result = sd_bus_message_new_signal(handle, &created, path, interface, member)
        if result >= 0, let created {
            let message = BusMessage(taking: created)
            if let destination { result = sd_bus_message_set_destination(created, destination) }
            if result >= 0 { result = message.append(arguments) }
            if result >= 0 { result = message.send() }
        }
        guard result >= 0 else {
            throw LinuxActivityError(.bus, "cannot emit \(interface).\(member)", errno: Errno(systemdResult: result))
        }
    }

    /// The object path `prefix/label` with `label` escaped into one path element (`_` and two hex digits for each
    /// byte that is not a letter or digit), as logind and systemd name their objects; nil when sd-bus refuses.
    ///
    /// The C function is `sd_bus_path_encode(3)`.
    public static func objectPath(_ prefix: String, escaping label: String) -> String? {
        var path: UnsafeMutablePointer<CChar>?
        guard sd_bus_path_encode(prefix, label, &path) >= 0, let path else { return nil }
        defer { free(path) }
        return String(cString: path)
    }

    /// Keeps `box` alive for as long as the slot that `register` creates with it (both are released in `deinit`, the
    /// slot with `sd_bus_slot_unref(3)`); releases the box at once on failure.
    private func addSlot(
        _ box: HandlerBox, _ register: (inout OpaquePointer?, UnsafeMutableRawPointer) -> Int32,
        failure: () -> String
    ) throws(LinuxActivityError) {
        let retained = Unmanaged.passRetained(box)
        var slot: OpaquePointer?
        let result = register(&slot, retained.toOpaque())
        guard result >= 0, let slot else {
            retained.release()
            throw LinuxActivityError(.bus, failure(), errno: Errno(systemdResult: result))
        }
        slots.append(slot)
        handlers.append(retained)
    }

    private static let dispatch: sd_bus_message_handler_t = { message, userdata, _ in
        guard let message, let userdata else { return 0 }
        let box = Unmanaged<HandlerBox>.fromOpaque(userdata).takeUnretainedValue()
        return box.handler(BusMessage(borrowing: message)) ? 1 : 0
    }
}

/// A match or object handler, kept alive for as long as its sd-bus slot. Returns whether it handled the message.
private final class HandlerBox {
    let handler: (BusMessage) -> Bool
    init(_ handler: @escaping (BusMessage) -> Bool) { self.handler = handler }
}

/// Runs `body` with an empty `sd_bus_error` that it may fill, and frees the error afterwards.
///
/// The C function is `sd_bus_error_free(3)`.
func withBusError<Result>(_ body: (inout sd_bus_error) -> Result) -> Result {
    var error = sd_bus_error()
    defer { sd_bus_error_free(&error) }
    return body(&error)
}
