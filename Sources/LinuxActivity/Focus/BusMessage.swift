import CSystemd
import Glibc

/// A D-Bus message (a reply, a signal or a method call) read in order with typed reads.
final class BusMessage {
    // Holds one reference to the sd_bus_message for its lifetime; used only on the bus's thread.
    private let message: OpaquePointer

    /// Wraps a message whose reference the caller hands over.
    init(taking message: OpaquePointer) {
        self.message = message
    }

    /// Wraps a message owned by sd-bus, taking a reference of its own.
    ///
    /// The corresponding C function is `sd_bus_message_ref`.
    init(borrowing message: OpaquePointer) {
        self.message = sd_bus_message_ref(message)
    }

    deinit {
        sd_bus_message_unref(message)
    }

    /// Reads the next argument as a string (`s`, `o` or `g`); nil on a type mismatch or the end.
    ///
    /// The corresponding C function is `sd_bus_message_read_basic` (sd_bus_message_read_basic(3)).
    func readString() -> String? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        guard sd_bus_message_peek_type(message, &type, &contents) > 0 else { return nil }
        guard [UInt8(ascii: "s"), UInt8(ascii: "o"), UInt8(ascii: "g")].contains(UInt8(bitPattern: type)) else {
            return nil
        }
        var value: UnsafePointer<CChar>?
        guard sd_bus_message_read_basic(message, type, &value) > 0, let value else { return nil }
        return String(cString: value)
    }

    /// Reads the next argument as an unsigned integer of type `y`, `q`, `u`, `t` (or a boolean `b` as 0/1); nil on a
    /// mismatch.
    ///
    /// The corresponding C functions are `sd_bus_message_peek_type` and `sd_bus_message_read_basic`.
    func readUnsigned() -> UInt64? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        guard sd_bus_message_peek_type(message, &type, &contents) > 0 else { return nil }
        var storage: UInt64 = 0
        guard sd_bus_message_read_basic(message, type, &storage) > 0 else { return nil }
        switch UInt8(bitPattern: type) {
        case UInt8(ascii: "y"): return storage & 0xff
        case UInt8(ascii: "q"): return storage & 0xffff
        case UInt8(ascii: "u"), UInt8(ascii: "b"): return storage & 0xffff_ffff
        case UInt8(ascii: "t"): return storage
        default: return nil
        }
    }

    /// Reads the next argument as a signed 32-bit integer (`i`); nil on a mismatch.
    ///
    /// The corresponding C function is `sd_bus_message_read_basic`.
    func readInt32() -> Int32? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        guard sd_bus_message_peek_type(message, &type, &contents) > 0, type == CChar(UInt8(ascii: "i")) else {
            return nil
        }
        var value: Int32 = 0
        guard sd_bus_message_read_basic(message, type, &value) > 0 else { return nil }
        return value
    }

    /// The sender's unique name.
    ///
    /// The corresponding C function is `sd_bus_message_get_sender`.
    var sender: String? { sd_bus_message_get_sender(message).map { String(cString: $0) } }

    /// The member (method or signal name).
    ///
    /// The corresponding C function is `sd_bus_message_get_member`.
    var member: String? { sd_bus_message_get_member(message).map { String(cString: $0) } }

    /// The interface.
    ///
    /// The corresponding C function is `sd_bus_message_get_interface`.
    var interface: String? { sd_bus_message_get_interface(message).map { String(cString: $0) } }

    /// Whether this is a method call (which must be answered).
    ///
    /// The corresponding C function is `sd_bus_message_is_method_call` with no interface or member filter.
    var isMethodCall: Bool { sd_bus_message_is_method_call(message, nil, nil) > 0 }

    /// Answers a method call with no values.
    ///
    /// The corresponding C functions are `sd_bus_message_new_method_return` and `sd_bus_send`.
    func replyEmpty() {
        var reply: OpaquePointer?
        guard sd_bus_message_new_method_return(message, &reply) >= 0, let reply else { return }
        defer { sd_bus_message_unref(reply) }
        _ = sd_bus_send(nil, reply, nil)
    }

    /// Answers a method call with an error.
    ///
    /// The corresponding C functions are `sd_bus_error_set` and `sd_bus_reply_method_error`.
    func replyError(name: String, message text: String) {
        var error = sd_bus_error()
        defer { sd_bus_error_free(&error) }
        _ = sd_bus_error_set(&error, name, text)
        _ = sd_bus_reply_method_error(message, &error)
    }
}
