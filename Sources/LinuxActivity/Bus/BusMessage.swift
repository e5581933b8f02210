import CSystemd
import Glibc
import SystemPackage

/// One D-Bus message (a method call, its reply or a signal), written and read in order as `BusValue`s. Every sd-bus
/// message function the project uses is wrapped here once.
///
/// Not `Sendable`: a message is used on the thread that uses the `Bus` it came from, inside a handler or right after
/// a call.
public final class BusMessage {
    // Holds one reference to the sd_bus_message for its lifetime.
    package let pointer: OpaquePointer

    /// Wraps a message whose reference the caller hands over.
    init(taking pointer: OpaquePointer) { self.pointer = pointer }

    /// Wraps a message owned by sd-bus (a handler's argument), taking a reference of its own.
    ///
    /// The C function is `sd_bus_message_ref(3)`.
    package init(borrowing pointer: OpaquePointer) { self.pointer = sd_bus_message_ref(pointer) }

    /// The C function is `sd_bus_message_unref(3)`.
    deinit { sd_bus_message_unref(pointer) }

    /// The sender's unique name (`:1.42`).
    ///
    /// The C function is `sd_bus_message_get_sender(3)`.
    public var sender: String? { sd_bus_message_get_sender(pointer).map { String(cString: $0) } }

    /// The member: a method's or signal's name.
    ///
    /// The C function is `sd_bus_message_get_member(3)`.
    public var member: String? { sd_bus_message_get_member(pointer).map { String(cString: $0) } }

    /// The interface.
    ///
    /// The C function is `sd_bus_message_get_interface(3)`.
    public var interface: String? { sd_bus_message_get_interface(pointer).map { String(cString: $0) } }

    /// The object path.
    ///
    /// The C function is `sd_bus_message_get_path(3)`.
    public var path: String? { sd_bus_message_get_path(pointer).map { String(cString: $0) } }

    // MARK: Reading

    /// Reads every remaining argument (basic types `y n q b i u x t d s o g` and containers); stops at the end or at a
    /// type it does not know (`h`).
    ///
    /// The C functions are `sd_bus_message_enter_container(3)` and `sd_bus_message_exit_container(3)`.
    public func readAll() -> [BusValue] {
        var values: [BusValue] = []
        while let value = readValue() { values.append(value) }
        return values
    }

    /// Reads the next argument as a string (`s`, `o` or `g`); nil, without consuming it, on another type or at the
    /// end.
    public func readString() -> String? {
        guard let (type, _) = peekType(), [UInt8(ascii: "s"), UInt8(ascii: "o"), UInt8(ascii: "g")].contains(type)
        else { return nil }
        return readBasic(type, UnsafePointer<CChar>?.none).flatMap { $0 }.map { String(cString: $0) }
    }

    /// Reads the next argument as an unsigned integer of type `y`, `q`, `u`, `t` (or a boolean `b` as 0 or 1); nil on
    /// another type or at the end.
    public func readUnsigned() -> UInt64? {
        guard let (type, _) = peekType(), let storage = readBasic(type, UInt64(0)) else { return nil }
        switch type {
        case UInt8(ascii: "y"): return storage & 0xff
        case UInt8(ascii: "q"): return storage & 0xffff
        case UInt8(ascii: "u"), UInt8(ascii: "b"): return storage & 0xffff_ffff
        case UInt8(ascii: "t"): return storage
        default: return nil
        }
    }

    /// Reads the next argument as a signed 32-bit integer (`i`); nil, without consuming it, on another type or at the
    /// end.
    public func readInt32() -> Int32? {
        guard let (type, _) = peekType(), type == UInt8(ascii: "i") else { return nil }
        return readBasic(type, Int32(0))
    }

    private func readValue() -> BusValue? {
        guard let (type, contents) = peekType() else { return nil }
        switch type {
        case UInt8(ascii: "y"): return readBasic(type, UInt8(0)).map(BusValue.byte)
        case UInt8(ascii: "b"): return readBasic(type, Int32(0)).map { .boolean($0 != 0) }
        case UInt8(ascii: "n"): return readBasic(type, Int16(0)).map(BusValue.int16)
        case UInt8(ascii: "q"): return readBasic(type, UInt16(0)).map(BusValue.uint16)
        case UInt8(ascii: "i"): return readBasic(type, Int32(0)).map(BusValue.int32)
        case UInt8(ascii: "u"): return readBasic(type, UInt32(0)).map(BusValue.uint32)
        case UInt8(ascii: "x"): return readBasic(type, Int64(0)).map(BusValue.int64)
        case UInt8(ascii: "t"): return readBasic(type, UInt64(0)).map(BusValue.uint64)
        case UInt8(ascii: "d"): return readBasic(type, Double(0)).map(BusValue.double)
        case UInt8(ascii: "s"), UInt8(ascii: "g"):
            return readBasic(type, UnsafePointer<CChar>?.none).flatMap { $0 }.map { .string(String(cString: $0)) }
        case UInt8(ascii: "o"):
            return readBasic(type, UnsafePointer<CChar>?.none).flatMap { $0 }.map { .objectPath(String(cString: $0)) }
        case UInt8(ascii: "a"), UInt8(ascii: "e"), UInt8(ascii: "v"), UInt8(ascii: "r"):
            let signature = contents ?? ""
            guard sd_bus_message_enter_container(pointer, CChar(bitPattern: type), signature) > 0 else { return nil }
            let inner = readAll()
            sd_bus_message_exit_container(pointer)
            switch type {
            case UInt8(ascii: "a"): return .array(elementSignature: signature, inner)
            case UInt8(ascii: "e"): return inner.count == 2 ? .dictionaryEntry(inner[0], inner[1]) : nil
            case UInt8(ascii: "v"): return inner.first.map(BusValue.variant)
            default: return .structure(inner)
            }
        default:
            return nil
        }
    }

    /// The type of the next argument and, for a container, its contents' signature; nil at the end.
    ///
    /// The C function is `sd_bus_message_peek_type(3)`.
    private func peekType() -> (type: UInt8, contents: String?)? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        guard sd_bus_message_peek_type(pointer, &type, &contents) > 0 else { return nil }
        return (UInt8(bitPattern: type), contents.map { String(cString: $0) })
    }

    /// Reads the next argument, of the basic `type`, into storage that starts as `initial`; nil when it is not one.
    ///
    /// The C function is `sd_bus_message_read_basic(3)`.
    private func readBasic<Value: BitwiseCopyable>(_ type: UInt8, _ initial: Value) -> Value? {
        var value = initial
        return sd_bus_message_read_basic(pointer, CChar(bitPattern: type), &value) > 0 ? value : nil
    }

    // MARK: Writing

    /// Appends `values` in order. Returns 0 or a negative errno.
    package func append(_ values: [BusValue]) -> Int32 {
        for value in values {
            let result =
                switch value {
                case .byte(let byte): appendBasic("y", byte)
                case .boolean(let flag): appendBasic("b", Int32(flag ? 1 : 0))
                case .int16(let number): appendBasic("n", number)
                case .uint16(let number): appendBasic("q", number)
                case .int32(let number): appendBasic("i", number)
                case .uint32(let number): appendBasic("u", number)
                case .int64(let number): appendBasic("x", number)
                case .uint64(let number): appendBasic("t", number)
                case .double(let number): appendBasic("d", number)
                case .string(let text): text.withCString { appendBasic("s", from: $0) }
                case .objectPath(let path): path.withCString { appendBasic("o", from: $0) }
                case .array(let element, let elements): appendContainer("a", element, elements)
                case .dictionaryEntry(let key, let entry):
                    appendContainer("e", key.signature + entry.signature, [key, entry])
                case .variant(let inner): appendContainer("v", inner.signature, [inner])
                case .structure(let fields): appendContainer("r", fields.map(\.signature).joined(), fields)
                }
            if result < 0 { return result }
        }
        return 0
    }

    private func appendBasic<Value: BitwiseCopyable>(_ type: Character, _ value: Value) -> Int32 {
        withUnsafeBytes(of: value) { appendBasic(type, from: $0.baseAddress!) }
    }

    /// Appends one basic value; `value` points to the number, or is the string itself.
    ///
    /// The C function is `sd_bus_message_append_basic(3)`.
    private func appendBasic(_ type: Character, from value: UnsafeRawPointer) -> Int32 {
        sd_bus_message_append_basic(pointer, CChar(type.asciiValue!), value)
    }

    /// Appends a container of `type` (`a`, `e`, `v`, `r`) whose contents have the signature `contents`.
    ///
    /// The C functions are `sd_bus_message_open_container(3)` and `sd_bus_message_close_container(3)`.
    private func appendContainer(_ type: Character, _ contents: String, _ inner: [BusValue]) -> Int32 {
        var result = sd_bus_message_open_container(pointer, CChar(type.asciiValue!), contents)
        if result >= 0 { result = append(inner) }
        if result >= 0 { result = sd_bus_message_close_container(pointer) }
        return result
    }

    /// Sends this message on the bus it was created for. Returns 0 or a negative errno.
    ///
    /// The C function is `sd_bus_send(3)`.
    func send() -> Int32 {
        sd_bus_send(nil, pointer, nil)
    }

    // MARK: Answering

    /// Answers this method call with `values`.
    ///
    /// The C function is `sd_bus_message_new_method_return(3)`.
    public func reply(_ values: [BusValue] = []) throws(LinuxActivityError) {
        var created: OpaquePointer?
        var result = sd_bus_message_new_method_return(pointer, &created)
        if result >= 0, let created {
            let reply = BusMessage(taking: created)
            result = reply.append(values)
            if result >= 0 { result = reply.send() }
        }
        guard result >= 0 else {
            throw LinuxActivityError(
                .bus, "cannot answer \(interface ?? "").\(member ?? "")", errno: Errno(systemdResult: result))
        }
    }

    /// Answers this method call with the D-Bus error `name` (`org.freedesktop.DBus.Error.AccessDenied`) and `text`.
    ///
    /// The C functions are `sd_bus_error_set(3)` and `sd_bus_reply_method_error(3)`.
    public func replyError(name: String, message text: String) throws(LinuxActivityError) {
        let result = withBusError { (error: inout sd_bus_error) -> Int32 in
            _ = sd_bus_error_set(&error, name, text)
            return sd_bus_reply_method_error(pointer, &error)
        }
        guard result >= 0 else {
            throw LinuxActivityError(
                .bus, "cannot answer \(interface ?? "").\(member ?? "") with \(name)",
                errno: Errno(systemdResult: result))
        }
    }
}
