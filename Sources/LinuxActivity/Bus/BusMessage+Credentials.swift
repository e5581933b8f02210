import CSystemd
import ScreenTimeModel
import SystemPackage

/// Who sent a message, as the bus vouches for it: the effective uid and the process.
public struct BusCredentials: Hashable, Sendable {
    /// The sender's effective uid.
    public var user: UserID
    /// The sender's process id at the time it connected.
    public var process: ProcessID

    /// Credentials of `user`'s process `process`.
    public init(user: UserID, process: ProcessID) {
        self.user = user
        self.process = process
    }
}

extension BusMessage {
    /// The sender's uid and pid, from the bus driver (never from what the sender says about itself).
    ///
    /// The C functions are `sd_bus_query_sender_creds(3)`, `sd_bus_creds_get_euid(3)` and `sd_bus_creds_get_pid(3)`.
    public func senderCredentials() throws(LinuxActivityError) -> BusCredentials {
        var creds: OpaquePointer?
        // SD_BUS_CREDS_PID (bit 0) and SD_BUS_CREDS_EUID (bit 4): sd-bus declares them in an anonymous enum of 64-bit values.
        let mask: UInt64 = 1 << 0 | 1 << 4
        var result = sd_bus_query_sender_creds(pointer, mask, &creds)
        guard result >= 0, let creds else {
            throw LinuxActivityError(.bus, "cannot read the sender's credentials", errno: Errno(systemdResult: result))
        }
        defer { sd_bus_creds_unref(creds) }
        var user = uid_t()
        var process = pid_t()
        result = sd_bus_creds_get_euid(creds, &user)
        if result >= 0 { result = sd_bus_creds_get_pid(creds, &process) }
        guard result >= 0 else {
            throw LinuxActivityError(
                .bus, "the bus did not vouch for the sender's uid and pid", errno: Errno(systemdResult: result))
        }
        return BusCredentials(user: UserID(user), process: ProcessID(process))
    }
}
