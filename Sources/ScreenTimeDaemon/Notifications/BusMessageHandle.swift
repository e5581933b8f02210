import CSystemd
import Glibc
import SystemPackage

/// One sd-bus message, written and read with `BusValue`s. Each sd-bus message function is wrapped here once.
final class BusMessageHandle {
    // Holds one reference to the sd_bus_message; used only by the thread that holds the owning bus's lock.
    let pointer: OpaquePointer

    /// Wraps a message whose reference the caller hands over.
    init(taking pointer: OpaquePointer) { self.pointer = pointer }

    /// Wraps a message owned by sd-bus (a callback's argument), taking a reference of its own.
    ///
    /// The C function is `sd_bus_message_ref(3)`.
    init(borrowing pointer: OpaquePointer) { self.pointer = sd_bus_message_ref(pointer) }

    deinit { sd_bus_message_unref(pointer) }

    /// Appends `values` in order. Returns 0 or a negative errno.
    ///
    /// The C functions are `sd_bus_message_append_basic(3)`, `sd_bus_message_open_container(3)` and
    /// `sd_bus_message_close_container(3)`.
    func append(_ values: [BusValue]) -> Int32 {
        for value in values {
            let result = append(value)
            if result < 0 { return result }
        }
        return 0
    }

    private func append(_ value: BusValue) -> Int32 {
        func basic<T: BitwiseCopyable>(_ type: Character, _ value: T) -> Int32 {
            var copy = value
            return sd_bus_message_append_basic(pointer, CChar(type.asciiValue!), &copy)
        }
        func container(_ type: Character, _ contents: String, _ inner: [BusValue]) -> Int32 {
            var result = sd_bus_message_open_container(pointer, CChar(type.asciiValue!), contents)
            if result >= 0 { result = append(inner) }
            if result >= 0 { result = sd_bus_message_close_container(pointer) }
            return result
        }
        switch value {
        case .byte(let byte): return basic("y", byte)
        case .boolean(let flag): return basic("b", Int32(flag ? 1 : 0))
        case .int32(let number): return basic("i", number)
        case .uint32(let number): return basic("u", number)
        case .int64(let number): return basic("x", number)
        case .uint64(let number): return basic("t", number)
        case .double(let number): return basic("d", number)
        case .string(let text):
            return text.withCString { sd_bus_message_append_basic(pointer, CChar(UInt8(ascii: "s")), $0) }
        case .objectPath(let path):
            return path.withCString { sd_bus_message_append_basic(pointer, CChar(UInt8(ascii: "o")), $0) }
        case .array(let element, let elements): return container("a", element, elements)
        case .dictionaryEntry(let key, let entry): return container("e", key.signature + entry.signature, [key, entry])
        case .variant(let inner): return container("v", inner.signature, [inner])
        case .structure(let fields): return container("r", fields.map(\.signature).joined(), fields)
        }
    }

    /// Reads every remaining argument (types `y b i u x t d s o g` and containers); stops at the end or at a type it
    /// does not know.
    ///
    /// The C functions are `sd_bus_message_peek_type(3)`, `sd_bus_message_read_basic(3)`,
    /// `sd_bus_message_enter_container(3)` and `sd_bus_message_exit_container(3)`.
    func readAll() -> [BusValue] {
        var values: [BusValue] = []
        while let value = readValue() { values.append(value) }
        return values
    }

    private func readValue() -> BusValue? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        guard sd_bus_message_peek_type(pointer, &type, &contents) > 0 else { return nil }
        let code = UInt8(bitPattern: type)
        func basic<T: BitwiseCopyable>(_ initial: T) -> T? {
            var value = initial
            return sd_bus_message_read_basic(pointer, type, &value) > 0 ? value : nil
        }
        switch code {
        case UInt8(ascii: "y"): return basic(UInt8(0)).map(BusValue.byte)
        case UInt8(ascii: "b"): return basic(Int32(0)).map { .boolean($0 != 0) }
        case UInt8(ascii: "i"): return basic(Int32(0)).map(BusValue.int32)
        case UInt8(ascii: "u"): return basic(UInt32(0)).map(BusValue.uint32)
        case UInt8(ascii: "x"): return basic(Int64(0)).map(BusValue.int64)
        case UInt8(ascii: "t"): return basic(UInt64(0)).map(BusValue.uint64)
        case UInt8(ascii: "d"): return basic(Double(0)).map(BusValue.double)
        case UInt8(ascii: "s"), UInt8(ascii: "g"):
            return basic(UnsafePointer<CChar>?.none).flatMap { $0 }.map { .string(String(cString: $0)) }
        case UInt8(ascii: "o"):
            return basic(UnsafePointer<CChar>?.none).flatMap { $0 }.map { .objectPath(String(cString: $0)) }
        case UInt8(ascii: "a"), UInt8(ascii: "e"), UInt8(ascii: "v"), UInt8(ascii: "r"):
            let signature = contents.map { String(cString: $0) } ?? ""
            guard sd_bus_message_enter_container(pointer, type, signature) > 0 else { return nil }
            let inner = readAll()
            sd_bus_message_exit_container(pointer)
            switch code {
            case UInt8(ascii: "a"): return .array(elementSignature: signature, inner)
            case UInt8(ascii: "e"): return inner.count == 2 ? .dictionaryEntry(inner[0], inner[1]) : nil
            case UInt8(ascii: "v"): return inner.first.map(BusValue.variant)
            default: return .structure(inner)
            }
        default: return nil
        }
    }

    /// The sender's unique name (`:1.42`).
    ///
    /// The C function is `sd_bus_message_get_sender(3)`.
    var sender: String? { sd_bus_message_get_sender(pointer).map { String(cString: $0) } }

    /// The member: a method's or signal's name.
    ///
    /// The C function is `sd_bus_message_get_member(3)`.
    var member: String? { sd_bus_message_get_member(pointer).map { String(cString: $0) } }

    /// The interface.
    ///
    /// The C function is `sd_bus_message_get_interface(3)`.
    var interface: String? { sd_bus_message_get_interface(pointer).map { String(cString: $0) } }

    /// The object path.
    ///
    /// The C function is `sd_bus_message_get_path(3)`.
    var path: String? { sd_bus_message_get_path(pointer).map { String(cString: $0) } }

    /// Answers this method call with `values`. Returns 0 or a negative errno.
    ///
    /// The C functions are `sd_bus_message_new_method_return(3)` and `sd_bus_send(3)`.
    func reply(_ values: [BusValue]) -> Int32 {
        var created: OpaquePointer?
        var result = sd_bus_message_new_method_return(pointer, &created)
        guard result >= 0, let created else { return result }
        let reply = BusMessageHandle(taking: created)
        result = reply.append(values)
        guard result >= 0 else { return result }
        return sd_bus_send(nil, reply.pointer, nil)
    }
}
