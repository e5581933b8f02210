import CSystemd
import Glibc
import SystemPackage

/// A connection to a D-Bus bus through sd-bus, with what desktop notifications need on both sides: method calls
/// with container arguments, signal matches, and (for a relay or a test's server) owning a name, serving an object
/// and emitting signals. Each sd-bus connection function is wrapped here once.
final class NotificationBus {
    // Invariant: sd-bus objects are not thread-safe. The owner keeps this object behind a lock (DesktopNotifier) or
    // on one thread (a server's loop); the handlers run inside `process()`, on the caller's thread.
    private let bus: OpaquePointer
    private var slots: [OpaquePointer] = []
    private var handlers: [Unmanaged<MessageHandlerBox>] = []
    /// The address connected to, for messages.
    let address: String

    /// Why a method call failed: the D-Bus error's name and text, and the errno sd-bus mapped it to.
    struct CallFailure: Error {
        var name: String
        var text: String
        var errno: Errno
    }

    /// Connects to the bus at `address` (`unix:path=/run/user/1000/bus`) as a client and says hello.
    ///
    /// The C functions are `sd_bus_new(3)`, `sd_bus_set_address(3)`, `sd_bus_set_bus_client(3)` and
    /// `sd_bus_start(3)`.
    init(address: String) throws(DaemonServiceError) {
        var created: OpaquePointer?
        var result = sd_bus_new(&created)
        guard result >= 0, let created else {
            throw DaemonServiceError(
                .busUnavailable, "cannot create a D-Bus connection", errno: Errno(negatedResult: result))
        }
        result = sd_bus_set_address(created, address)
        if result >= 0 { result = sd_bus_set_bus_client(created, 1) }
        if result >= 0 { result = sd_bus_start(created) }
        guard result >= 0 else {
            sd_bus_unref(created)
            throw DaemonServiceError(
                .busUnavailable, "cannot connect to the session bus at \(address)", errno: Errno(negatedResult: result))
        }
        bus = created
        self.address = address
    }

    deinit {
        for slot in slots { sd_bus_slot_unref(slot) }
        for handler in handlers { handler.release() }
        sd_bus_flush_close_unref(bus)
    }

    /// The bus socket, to wait on with `poll(2)` for `POLLIN`.
    ///
    /// The C function is `sd_bus_get_fd(3)`.
    var fileDescriptor: Int32 { sd_bus_get_fd(bus) }

    /// This connection's unique name (`:1.42`).
    ///
    /// The C function is `sd_bus_get_unique_name(3)`.
    var uniqueName: String? {
        var name: UnsafePointer<CChar>?
        guard sd_bus_get_unique_name(bus, &name) >= 0, let name else { return nil }
        return String(cString: name)
    }

    /// Handles every message already received or queued (running match and object handlers); returns 0 or a
    /// negative errno when the connection is lost.
    ///
    /// The C function is `sd_bus_process(3)`.
    func process() -> Int32 {
        while true {
            let result = sd_bus_process(bus, nil)
            if result <= 0 { return result }
        }
    }

    /// Calls `interface.member` on `destination` at `path` with `arguments` and waits up to `timeout` for the reply.
    ///
    /// The C functions are `sd_bus_message_new_method_call(3)` and `sd_bus_call(3)`.
    func call(
        _ destination: String, _ path: String, _ interface: String, _ member: String, _ arguments: [BusValue] = [],
        timeout: Duration
    ) -> Result<BusMessageHandle, CallFailure> {
        var created: OpaquePointer?
        var result = sd_bus_message_new_method_call(bus, &created, destination, path, interface, member)
        guard result >= 0, let created else {
            return .failure(CallFailure(name: "", text: "cannot build the call", errno: Errno(negatedResult: result)))
        }
        let message = BusMessageHandle(taking: created)
        result = message.append(arguments)
        guard result >= 0 else {
            return .failure(
                CallFailure(name: "", text: "cannot build the arguments", errno: Errno(negatedResult: result)))
        }
        var error = sd_bus_error()
        defer { sd_bus_error_free(&error) }
        var reply: OpaquePointer?
        let (seconds, attoseconds) = timeout.components
        let microseconds = UInt64(max(0, seconds)) * 1_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000_000)
        result = sd_bus_call(bus, message.pointer, microseconds, &error, &reply)
        guard result >= 0, let reply else {
            return .failure(
                CallFailure(
                    name: error.name.map { String(cString: $0) } ?? "",
                    text: error.message.map { String(cString: $0) } ?? "", errno: Errno(negatedResult: result)))
        }
        return .success(BusMessageHandle(taking: reply))
    }

    /// Calls `handler` with every message matching the D-Bus match `rule`, from inside `process()`.
    ///
    /// The C function is `sd_bus_add_match(3)`.
    func addMatch(_ rule: String, _ handler: @escaping (BusMessageHandle) -> Bool) throws(DaemonServiceError) {
        let box = Unmanaged.passRetained(MessageHandlerBox(handler))
        var slot: OpaquePointer?
        let result = csd_bus_add_match(bus, &slot, rule, NotificationBus.dispatch, box.toOpaque())
        guard result >= 0, let slot else {
            box.release()
            throw DaemonServiceError(
                .busUnavailable, "cannot subscribe to \(rule)", errno: Errno(negatedResult: result))
        }
        slots.append(slot)
        handlers.append(box)
    }

    /// Serves method calls to the object at `path`: `handler` answers (with `BusMessageHandle.reply`) and returns
    /// true, or returns false to let sd-bus answer `UnknownMethod`.
    ///
    /// The C function is `sd_bus_add_object(3)`.
    func addObject(_ path: String, _ handler: @escaping (BusMessageHandle) -> Bool) throws(DaemonServiceError) {
        let box = Unmanaged.passRetained(MessageHandlerBox(handler))
        var slot: OpaquePointer?
        let result = sd_bus_add_object(bus, &slot, path, NotificationBus.dispatch, box.toOpaque())
        guard result >= 0, let slot else {
            box.release()
            throw DaemonServiceError(.busUnavailable, "cannot serve \(path)", errno: Errno(negatedResult: result))
        }
        slots.append(slot)
        handlers.append(box)
    }

    /// Takes the well-known `name` (fails when another connection owns it).
    ///
    /// The C function is `sd_bus_request_name(3)`.
    func requestName(_ name: String) throws(DaemonServiceError) {
        let result = sd_bus_request_name(bus, name, 0)
        guard result >= 0 else {
            throw DaemonServiceError(.busUnavailable, "cannot own \(name)", errno: Errno(negatedResult: result))
        }
    }

    /// Broadcasts the signal `interface.member` from `path` with `arguments`.
    ///
    /// The C functions are `sd_bus_message_new_signal(3)` and `sd_bus_send(3)`.
    func emitSignal(_ path: String, _ interface: String, _ member: String, _ arguments: [BusValue])
        throws(DaemonServiceError)
    {
        var created: OpaquePointer?
        var result = sd_bus_message_new_signal(bus, &created, path, interface, member)
        if result >= 0, let created {
            let message = BusMessageHandle(taking: created)
            result = message.append(arguments)
            if result >= 0 { result = sd_bus_send(bus, message.pointer, nil) }
        }
        guard result >= 0 else {
            throw DaemonServiceError(
                .busUnavailable, "cannot emit \(interface).\(member)", errno: Errno(negatedResult: result))
        }
    }

    private static let dispatch: sd_bus_message_handler_t = { message, userdata, _ in
        guard let message, let userdata else { return 0 }
        let box = Unmanaged<MessageHandlerBox>.fromOpaque(userdata).takeUnretainedValue()
        return box.handler(BusMessageHandle(borrowing: message)) ? 1 : 0
    }
}

/// A handler kept alive for as long as its sd-bus slot.
private final class MessageHandlerBox {
    let handler: (BusMessageHandle) -> Bool
    init(_ handler: @escaping (BusMessageHandle) -> Bool) { self.handler = handler }
}
