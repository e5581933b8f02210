import CXCB
import Glibc
import SystemPackage

/// A connection to an X server, with the few requests a focus source makes. Each libxcb call is wrapped here once.
///
/// libxcb is thread-safe: requests may be sent from any thread while another thread reads events. One caveat
/// follows from it: a thread waiting for a reply may read pending events into libxcb's queue, where `poll(2)` on
/// the connection's descriptor no longer sees them. Whoever makes requests beside an event loop must wake that
/// loop afterwards (`X11FocusSource` does, through its wake-up descriptor).
final class X11Connection: @unchecked Sendable {
    // Invariant: `connection` is valid from init until deinit and is only used through libxcb's thread-safe
    // API; the atoms, the root window and the SYNC extension's data are written once in init.
    /// The libxcb connection (`xcb_connection_t`), for the requests of this type's extensions in other files.
    let connection: OpaquePointer
    /// The root window of the display's screen.
    let root: xcb_window_t
    /// The interned `_NET_ACTIVE_WINDOW` atom.
    let activeWindowAtom: xcb_atom_t
    private let pidAtom: xcb_atom_t
    private let supportedAtom: xcb_atom_t
    private let clientMachineAtom: xcb_atom_t
    private let windowStateAtom: xcb_atom_t
    /// Whether the server has the X-Resource extension, which names the local pid of a window's client.
    let hasResourceExtension: Bool
    /// Whether the server has the MIT-SCREEN-SAVER extension, which measures the time since the last input.
    let hasScreenSaverExtension: Bool
    /// The SYNC extension's `IDLETIME` counter (the time since the last input, in milliseconds) and the code of the
    /// extension's first event; nil when the server has neither.
    let idleCounter: (counter: xcb_sync_counter_t, eventBase: UInt8)?

    /// Connects to `display` with `authority` if given, else with libxcb's own Xauthority lookup.
    ///
    /// The corresponding C functions are `xcb_connect_to_display_with_auth_info` and `xcb_connection_has_error`.
    init(display: X11Display, authority: XAuthority?) throws(FocusSourceError) {
        var screenNumber: Int32 = 0
        let connected: OpaquePointer?
        if let authority {
            var name = Array(authority.protocolName.utf8CString)
            var data = authority.data.map { CChar(bitPattern: $0) }
            connected = name.withUnsafeMutableBufferPointer { namePointer in
                data.withUnsafeMutableBufferPointer { dataPointer in
                    var info = xcb_auth_info_t(
                        namelen: Int32(namePointer.count - 1), name: namePointer.baseAddress,
                        datalen: Int32(dataPointer.count), data: dataPointer.baseAddress)
                    return xcb_connect_to_display_with_auth_info(display.name, &info, &screenNumber)
                }
            }
        } else {
            connected = xcb_connect_to_display_with_auth_info(display.name, nil, &screenNumber)
        }
        // xcb_connect never returns NULL: on failure it returns a static error connection, still to be freed.
        guard let connected else {
            throw FocusSourceError(.connectionFailed, "cannot connect to X display \(display)")
        }
        let status = xcb_connection_has_error(connected)
        guard status == 0 else {
            xcb_disconnect(connected)
            throw FocusSourceError(
                .connectionFailed, "cannot connect to X display \(display) (\(Self.describe(status: status)))")
        }
        connection = connected
        guard let screen = Self.screen(of: connected, number: Int(screenNumber)) else {
            xcb_disconnect(connected)
            throw FocusSourceError(.protocolViolation, "X display \(display) has no screen \(screenNumber)")
        }
        root = screen
        activeWindowAtom = Self.internAtom(connected, "_NET_ACTIVE_WINDOW")
        pidAtom = Self.internAtom(connected, "_NET_WM_PID")
        supportedAtom = Self.internAtom(connected, "_NET_SUPPORTED")
        clientMachineAtom = Self.internAtom(connected, "WM_CLIENT_MACHINE")
        windowStateAtom = Self.internAtom(connected, "WM_STATE")
        hasResourceExtension = Self.extensionPresent(connected, "X-Resource")
        hasScreenSaverExtension = Self.extensionPresent(connected, "MIT-SCREEN-SAVER")
        idleCounter = Self.idleCounter(of: connected)
    }

    deinit {
        xcb_disconnect(connection)
    }

    /// The descriptor of the connection's socket, to wait on with `poll(2)`.
    ///
    /// The corresponding C function is `xcb_get_file_descriptor`.
    var fileDescriptor: FileDescriptor { FileDescriptor(rawValue: xcb_get_file_descriptor(connection)) }

    /// Whether the connection has failed (server gone, protocol error); a failed connection stays failed.
    ///
    /// The corresponding C function is `xcb_connection_has_error`.
    var hasFailed: Bool { xcb_connection_has_error(connection) != 0 }

    /// Sends buffered requests to the server.
    ///
    /// The corresponding C function is `xcb_flush`.
    func flush() {
        _ = xcb_flush(connection)
    }

    /// Asks for PropertyNotify events on the root window, which is how `_NET_ACTIVE_WINDOW` changes arrive.
    ///
    /// The corresponding C function is `xcb_change_window_attributes` with `XCB_CW_EVENT_MASK`.
    func selectRootPropertyChanges() {
        var mask = XCB_EVENT_MASK_PROPERTY_CHANGE.rawValue
        _ = xcb_change_window_attributes(connection, root, XCB_CW_EVENT_MASK.rawValue, &mask)
        flush()
    }

    /// An event read from the connection, reduced to what focus tracking uses.
    enum Event {
        /// A property of `window` changed (or was deleted).
        case propertyChanged(window: xcb_window_t, atom: xcb_atom_t)
        /// An alarm on the `IDLETIME` counter fired (`X11IdleAlarm`), the counter then at `idleTime`.
        case idleAlarm(alarm: xcb_sync_alarm_t, idleTime: Duration)
        /// Any other event or an asynchronous error.
        case other
    }

    /// The next event already received, reading the socket if it has data; nil when none is pending.
    ///
    /// The corresponding C function is `xcb_poll_for_event`.
    func nextEvent() -> Event? {
        guard let event = xcb_poll_for_event(connection) else { return nil }
        defer { free(event) }
        let type = event.pointee.response_type & 0x7f
        if let idleCounter, type == idleCounter.eventBase &+ UInt8(XCB_SYNC_ALARM_NOTIFY) {
            let notify = UnsafeRawPointer(event).assumingMemoryBound(to: xcb_sync_alarm_notify_event_t.self).pointee
            let value = Int64(notify.counter_value.hi) << 32 | Int64(notify.counter_value.lo)
            return .idleAlarm(alarm: notify.alarm, idleTime: .milliseconds(max(0, value)))
        }
        guard type == XCB_PROPERTY_NOTIFY else { return .other }
        let notify = UnsafeRawPointer(event).assumingMemoryBound(to: xcb_property_notify_event_t.self).pointee
        return .propertyChanged(window: notify.window, atom: notify.atom)
    }

    /// The raw value of a window property, or nil when the window is gone or the property is unset.
    ///
    /// The corresponding C functions are `xcb_get_property` and `xcb_get_property_reply`.
    func property(of window: xcb_window_t, _ atom: xcb_atom_t, type: xcb_atom_t, maxLength: UInt32 = 256) -> [UInt8]? {
        let cookie = xcb_get_property(connection, 0, window, atom, type, 0, maxLength)
        guard let reply = xcb_get_property_reply(connection, cookie, nil) else { return nil }
        defer { free(reply) }
        let length = Int(xcb_get_property_value_length(reply))
        guard reply.pointee.type != 0, length > 0, let value = xcb_get_property_value(reply) else { return nil }
        return Array(UnsafeRawBufferPointer(start: value, count: length))
    }

    /// The window manager's `_NET_ACTIVE_WINDOW`, or nil when it names no window.
    func activeWindow() -> xcb_window_t? {
        guard let bytes = property(of: root, activeWindowAtom, type: xcb_atom_t(XCB_ATOM_WINDOW.rawValue)),
            let window = Self.firstUInt32(bytes), window != 0
        else { return nil }
        return window
    }

    /// The window the server sends keystrokes to (`SetInputFocus`, which the window manager calls as it focuses a
    /// window); nil for none or `PointerRoot`.
    ///
    /// The corresponding C functions are `xcb_get_input_focus` and `xcb_get_input_focus_reply`.
    func inputFocus() -> xcb_window_t? {
        guard let reply = xcb_get_input_focus_reply(connection, xcb_get_input_focus(connection), nil) else {
            return nil
        }
        defer { free(reply) }
        // 0 is None, 1 PointerRoot.
        return reply.pointee.focus > 1 ? reply.pointee.focus : nil
    }

    /// The windows from `window` up to the root's child that holds it (its frame, under a reparenting window
    /// manager), `window` first; empty when it vanished.
    ///
    /// The corresponding C functions are `xcb_query_tree` and `xcb_query_tree_reply`.
    func ancestry(of window: xcb_window_t) -> [xcb_window_t] {
        var chain: [xcb_window_t] = []
        var current = window
        while current != root, chain.count < 32 {
            guard let reply = xcb_query_tree_reply(connection, xcb_query_tree(connection, current), nil) else {
                return []
            }
            chain.append(current)
            current = reply.pointee.parent
            free(reply)
        }
        return chain
    }

    /// Whether `window` is a client's top-level window (the window manager manages it: it has `WM_STATE`).
    func isClientWindow(_ window: xcb_window_t) -> Bool {
        property(of: window, windowStateAtom, type: 0, maxLength: 2) != nil
    }

    /// Whether the window manager lists `_NET_ACTIVE_WINDOW` in `_NET_SUPPORTED` (twm, for one, does not).
    func windowManagerSupportsActiveWindow() -> Bool {
        guard let bytes = property(of: root, supportedAtom, type: xcb_atom_t(XCB_ATOM_ATOM.rawValue), maxLength: 4096)
        else { return false }
        return Self.uint32Values(bytes).contains(activeWindowAtom)
    }

    /// The pid of the local client that created `window`, from the X-Resource extension.
    ///
    /// Unlike `_NET_WM_PID`, the server knows it from the socket's credentials, so it is right for every local
    /// client, including those that never set `_NET_WM_PID` (xcalc, xedit). Nil for remote clients.
    ///
    /// The corresponding C functions are `xcb_res_query_client_ids` and `xcb_res_query_client_ids_reply`.
    func clientProcessID(of window: xcb_window_t) -> Int32? {
        guard hasResourceExtension else { return nil }
        var specification = xcb_res_client_id_spec_t(
            client: window, mask: XCB_RES_CLIENT_ID_MASK_LOCAL_CLIENT_PID.rawValue)
        let cookie = xcb_res_query_client_ids(connection, 1, &specification)
        guard let reply = xcb_res_query_client_ids_reply(connection, cookie, nil) else { return nil }
        defer { free(reply) }
        var iterator = xcb_res_query_client_ids_ids_iterator(reply)
        while iterator.rem > 0 {
            if iterator.data.pointee.spec.mask & XCB_RES_CLIENT_ID_MASK_LOCAL_CLIENT_PID.rawValue != 0,
                xcb_res_client_id_value_value_length(iterator.data) >= 1
            {
                let pid = xcb_res_client_id_value_value(iterator.data).pointee
                if pid > 0, pid <= UInt32(Int32.max) { return Int32(pid) }
            }
            xcb_res_client_id_value_next(&iterator)
        }
        return nil
    }

    /// The window's `_NET_WM_PID`, as its client claims it; nil when unset.
    func claimedProcessID(of window: xcb_window_t) -> Int32? {
        guard let bytes = property(of: window, pidAtom, type: xcb_atom_t(XCB_ATOM_CARDINAL.rawValue)),
            let pid = Self.firstUInt32(bytes), pid > 0, pid <= UInt32(Int32.max)
        else { return nil }
        return Int32(pid)
    }

    /// The window's `WM_CLIENT_MACHINE`: the host its client runs on, which says whether `_NET_WM_PID` is local.
    func clientMachine(of window: xcb_window_t) -> String? {
        guard let bytes = property(of: window, clientMachineAtom, type: xcb_atom_t(XCB_ATOM_STRING.rawValue)) else {
            return nil
        }
        return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// The window's `WM_CLASS` as (instance, class); nil when unset.
    func windowClass(of window: xcb_window_t) -> (instance: String, className: String)? {
        guard
            let bytes = property(
                of: window, xcb_atom_t(XCB_ATOM_WM_CLASS.rawValue),
                type: xcb_atom_t(XCB_ATOM_STRING.rawValue))
        else { return nil }
        let parts = bytes.split(separator: 0, omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        return (parts.first ?? "", parts.count > 1 ? parts[1] : "")
    }

    /// Time since the last user input on the screen, from the MIT-SCREEN-SAVER extension.
    ///
    /// The corresponding C functions are `xcb_screensaver_query_info` and `xcb_screensaver_query_info_reply`.
    func idleTime() -> Duration? {
        guard hasScreenSaverExtension else { return nil }
        let cookie = xcb_screensaver_query_info(connection, root)
        guard let reply = xcb_screensaver_query_info_reply(connection, cookie, nil) else { return nil }
        defer { free(reply) }
        return .milliseconds(Int64(reply.pointee.ms_since_user_input))
    }

    /// Makes `window` the active window as a pager would (a `_NET_ACTIVE_WINDOW` client message to the root).
    ///
    /// The corresponding C function is `xcb_send_event`.
    func requestActivation(of window: xcb_window_t) {
        var event = xcb_client_message_event_t()
        event.response_type = UInt8(XCB_CLIENT_MESSAGE)
        event.format = 32
        event.window = window
        event.type = activeWindowAtom
        event.data.data32 = (2, UInt32(XCB_CURRENT_TIME), 0, 0, 0)  // 2: source is a pager
        withUnsafePointer(to: &event) { pointer in
            pointer.withMemoryRebound(to: CChar.self, capacity: 32) { bytes in
                _ = xcb_send_event(
                    connection, 0, root,
                    XCB_EVENT_MASK_SUBSTRUCTURE_REDIRECT.rawValue | XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY.rawValue, bytes)
            }
        }
        flush()
    }

    /// Interns an atom by name; 0 (`XCB_ATOM_NONE`) when the server does not answer.
    ///
    /// The corresponding C functions are `xcb_intern_atom` and `xcb_intern_atom_reply`.
    private static func internAtom(_ connection: OpaquePointer, _ name: String) -> xcb_atom_t {
        let bytes = Array(name.utf8)
        let cookie = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                xcb_intern_atom(connection, 0, UInt16($0.count), $0.baseAddress)
            }
        }
        guard let reply = xcb_intern_atom_reply(connection, cookie, nil) else { return 0 }
        defer { free(reply) }
        return reply.pointee.atom
    }

    /// Whether the server has the extension of that name.
    ///
    /// The corresponding C functions are `xcb_query_extension` and `xcb_query_extension_reply`.
    private static func extensionPresent(_ connection: OpaquePointer, _ name: String) -> Bool {
        let bytes = Array(name.utf8)
        let cookie = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                xcb_query_extension(connection, UInt16($0.count), $0.baseAddress)
            }
        }
        guard let reply = xcb_query_extension_reply(connection, cookie, nil) else { return false }
        defer { free(reply) }
        return reply.pointee.present != 0
    }

    /// The root window of screen `number`.
    ///
    /// The corresponding C functions are `xcb_get_setup`, `xcb_setup_roots_iterator` and `xcb_screen_next`.
    private static func screen(of connection: OpaquePointer, number: Int) -> xcb_window_t? {
        var iterator = xcb_setup_roots_iterator(xcb_get_setup(connection))
        var index = 0
        while iterator.rem > 0 {
            if index == number { return iterator.data.pointee.root }
            xcb_screen_next(&iterator)
            index += 1
        }
        return nil
    }

    private static func describe(status: Int32) -> String {
        switch status {
        case XCB_CONN_ERROR: "socket or stream error"
        case XCB_CONN_CLOSED_EXT_NOTSUPPORTED: "extension not supported"
        case XCB_CONN_CLOSED_MEM_INSUFFICIENT: "out of memory"
        case XCB_CONN_CLOSED_REQ_LEN_EXCEED: "request too long"
        case XCB_CONN_CLOSED_PARSE_ERR: "bad display name"
        case XCB_CONN_CLOSED_INVALID_SCREEN: "no such screen"
        default: "refused, probably no valid Xauthority cookie (error \(status))"
        }
    }

    private static func firstUInt32(_ bytes: [UInt8]) -> UInt32? {
        uint32Values(bytes).first
    }

    private static func uint32Values(_ bytes: [UInt8]) -> [UInt32] {
        // Format-32 properties arrive in the client's byte order.
        stride(from: 0, to: bytes.count - 3, by: 4).map { offset in
            bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self) }
        }
    }
}
