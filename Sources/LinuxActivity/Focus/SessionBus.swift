import CSystemd
import Glibc
import SystemPackage

/// A client connection to a user's session bus through sd-bus, with the few operations the desktop focus
/// sources use. Each sd-bus call is wrapped here once.
final class SessionBus: @unchecked Sendable {
    // Invariant: sd-bus objects are not thread-safe. A SessionBus is created on one thread and then used only
    // by the thread it is handed to (the source's event thread); nothing else touches `bus` or the slots.
    private let bus: OpaquePointer
    private var slots: [OpaquePointer] = []
    private var handlers: [Unmanaged<HandlerBox>] = []
    /// The address connected to, for messages.
    let address: String

    /// Connects to the bus at `address` (`unix:path=/run/user/UID/bus`) and says hello.
    ///
    /// The corresponding C functions are `sd_bus_new`, `sd_bus_set_address`, `sd_bus_set_bus_client` and
    /// `sd_bus_start` (sd_bus_new(3)).
    init(address: String) throws(FocusSourceError) {
        var created: OpaquePointer?
        var result = sd_bus_new(&created)
        guard result >= 0, let created else {
            throw FocusSourceError(
                .connectionFailed, "cannot create an sd-bus object", underlying: Errno(rawValue: -result))
        }
        result = sd_bus_set_address(created, address)
        if result >= 0 { result = sd_bus_set_bus_client(created, 1) }
        if result >= 0 { result = sd_bus_start(created) }
        guard result >= 0 else {
            sd_bus_unref(created)
            throw FocusSourceError(
                .connectionFailed, "cannot connect to the session bus at \(address)",
                underlying: Errno(rawValue: -result))
        }
        bus = created
        self.address = address
    }

    deinit {
        for slot in slots { sd_bus_slot_unref(slot) }
        for handler in handlers { handler.release() }
        sd_bus_flush_close_unref(bus)
    }

    /// The bus socket, to wait on with `poll(2)`.
    ///
    /// The corresponding C function is `sd_bus_get_fd` (sd_bus_get_fd(3)).
    var fileDescriptor: FileDescriptor { FileDescriptor(rawValue: sd_bus_get_fd(bus)) }

    /// Handles one pending incoming message (dispatching matches and object calls); false when none was pending.
    ///
    /// The corresponding C function is `sd_bus_process` (sd_bus_process(3)).
    func process() throws(FocusSourceError) -> Bool {
        let result = sd_bus_process(bus, nil)
        guard result >= 0 else {
            throw FocusSourceError(
                .connectionFailed, "lost the session bus at \(address)", underlying: Errno(rawValue: -result))
        }
        return result > 0
    }

    /// Writes out queued messages.
    ///
    /// The corresponding C function is `sd_bus_flush` (sd_bus_flush(3)).
    func flush() {
        _ = sd_bus_flush(bus)
    }

    /// An argument of a method call.
    enum Argument {
        case string(String)
        case uint32(UInt32)
    }

    /// Calls a method and waits for its reply (at most `timeout`).
    ///
    /// The corresponding C functions are `sd_bus_message_new_method_call`, `sd_bus_message_append_basic` and
    /// `sd_bus_call` (sd_bus_call(3)).
    func call(
        _ destination: String, _ path: String, _ interface: String, _ member: String, _ arguments: [Argument] = [],
        timeout: Duration = .seconds(2)
    ) throws(FocusSourceError) -> BusMessage {
        var message: OpaquePointer?
        var result = sd_bus_message_new_method_call(bus, &message, destination, path, interface, member)
        guard result >= 0, let message else {
            throw FocusSourceError(
                .protocolViolation, "cannot build \(interface).\(member)", underlying: Errno(rawValue: -result))
        }
        defer { sd_bus_message_unref(message) }
        for argument in arguments {
            switch argument {
            case .string(let value):
                result = value.withCString { sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), $0) }
            case .uint32(var value):
                result = sd_bus_message_append_basic(message, CChar(UInt8(ascii: "u")), &value)
            }
            guard result >= 0 else {
                throw FocusSourceError(
                    .protocolViolation, "cannot build \(interface).\(member)", underlying: Errno(rawValue: -result))
            }
        }
        var error = sd_bus_error()
        defer { sd_bus_error_free(&error) }
        var reply: OpaquePointer?
        let microseconds =
            UInt64(timeout.components.seconds) * 1_000_000 + UInt64(timeout.components.attoseconds / 1_000_000_000_000)
        result = sd_bus_call(bus, message, microseconds, &error, &reply)
        guard result >= 0, let reply else {
            let name = error.name.map { String(cString: $0) } ?? "error"
            let text = error.message.map { String(cString: $0) } ?? ""
            let code: FocusSourceError.Code =
                name == "org.freedesktop.DBus.Error.ServiceUnknown"
                    || name == "org.freedesktop.DBus.Error.UnknownMethod"
                ? .integrationMissing : .connectionFailed
            throw FocusSourceError(
                code, "\(destination) \(interface).\(member) failed: \(name) \(text)",
                underlying: Errno(rawValue: -result))
        }
        return BusMessage(taking: reply)
    }

    /// The unique name (`:1.42`) that owns a well-known name, or nil when nobody does.
    func nameOwner(_ name: String) -> String? {
        guard
            let reply = try? call(
                "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner", [.string(name)]
            )
        else { return nil }
        return reply.readString()
    }

    /// This connection's unique name.
    ///
    /// The corresponding C function is `sd_bus_get_unique_name` (sd_bus_get_unique_name(3)).
    var uniqueName: String? {
        var name: UnsafePointer<CChar>?
        guard sd_bus_get_unique_name(bus, &name) >= 0, let name else { return nil }
        return String(cString: name)
    }

    /// Calls `handler` for every message matching `rule` (a D-Bus match rule), while this bus lives.
    ///
    /// The corresponding C function is `sd_bus_add_match` (sd_bus_add_match(3)).
    func addMatch(_ rule: String, _ handler: @escaping (BusMessage) -> Void) throws(FocusSourceError) {
        let box = Unmanaged.passRetained(
            HandlerBox { message in
                handler(message)
                return nil
            })
        var slot: OpaquePointer?
        let result = sd_bus_add_match(bus, &slot, rule, SessionBus.dispatch, box.toOpaque())
        guard result >= 0, let slot else {
            box.release()
            throw FocusSourceError(
                .connectionFailed, "cannot add the match \(rule)", underlying: Errno(rawValue: -result))
        }
        slots.append(slot)
        handlers.append(box)
    }

    /// Serves method calls to `path`: `handler` returns nil to answer with an empty reply, or an error name and
    /// message to answer with that error.
    ///
    /// The corresponding C function is `sd_bus_add_object` (sd_bus_add_object(3)).
    func addObject(_ path: String, _ handler: @escaping (BusMessage) -> (name: String, message: String)?)
        throws(FocusSourceError)
    {
        let box = Unmanaged.passRetained(HandlerBox(handler))
        var slot: OpaquePointer?
        let result = sd_bus_add_object(bus, &slot, path, SessionBus.dispatch, box.toOpaque())
        guard result >= 0, let slot else {
            box.release()
            throw FocusSourceError(.connectionFailed, "cannot export \(path)", underlying: Errno(rawValue: -result))
        }
        slots.append(slot)
        handlers.append(box)
    }

    /// Takes a well-known name; fails when another connection has it.
    ///
    /// The corresponding C function is `sd_bus_request_name` (sd_bus_request_name(3)).
    func requestName(_ name: String) throws(FocusSourceError) {
        let result = sd_bus_request_name(bus, name, 0)
        guard result >= 0 else {
            throw FocusSourceError(
                .connectionFailed, "cannot own \(name) on the session bus (another collector has it?)",
                underlying: Errno(rawValue: -result))
        }
    }

    /// Gives a well-known name back.
    ///
    /// The corresponding C function is `sd_bus_release_name` (sd_bus_request_name(3)).
    func releaseName(_ name: String) {
        _ = sd_bus_release_name(bus, name)
    }

    private final class HandlerBox {
        let handler: (BusMessage) -> (name: String, message: String)?
        init(_ handler: @escaping (BusMessage) -> (name: String, message: String)?) { self.handler = handler }
    }

    private static let dispatch: sd_bus_message_handler_t = { message, userdata, _ in
        guard let message, let userdata else { return 0 }
        let box = Unmanaged<HandlerBox>.fromOpaque(userdata).takeUnretainedValue()
        let wrapped = BusMessage(borrowing: message)
        let outcome = box.handler(wrapped)
        guard sd_bus_message_get_type(message, nil) >= 0, wrapped.isMethodCall else { return 0 }
        if let outcome {
            wrapped.replyError(name: outcome.name, message: outcome.message)
        } else {
            wrapped.replyEmpty()
        }
        return 1
    }
}
