import CSystemd
import SystemPackage

extension Bus {
    /// The calling user's session bus (`$DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`).
    ///
    /// The C function is `sd_bus_open_user(3)`.
    public static func session() throws(LinuxActivityError) -> Bus {
        var bus: OpaquePointer?
        let result = sd_bus_open_user(&bus)
        guard result >= 0, let bus else {
            throw LinuxActivityError(.bus, "cannot connect to the session bus", errno: Errno(systemdResult: result))
        }
        return Bus(handle: bus, peer: "the session bus")
    }

    /// The connection's unique name (`:1.42`), once it has said hello.
    ///
    /// The C function is `sd_bus_get_unique_name(3)`.
    public var uniqueName: String? {
        var name: UnsafePointer<CChar>?
        guard sd_bus_get_unique_name(handle, &name) >= 0, let name else { return nil }
        return String(cString: name)
    }
}
