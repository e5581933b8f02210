import Glibc

/// Addresses of users' session buses (`/run/user/UID/bus`), for the desktop focus sources.
public enum UserSessionBus {
    /// How long a focus source waits for an answer to a call on the session bus.
    static let callTimeout: Duration = .seconds(2)

    /// Connects to the session bus at `address` (see `address(ofUserBusAt:uid:)`).
    static func connect(address: String) throws(FocusSourceError) -> Bus {
        do {
            return try Bus.connect(address: address)
        } catch {
            throw FocusSourceError(
                .connectionFailed, "cannot connect to the session bus at \(address)", underlying: error.errno)
        }
    }

    /// The conventional session bus socket of `uid` in its runtime directory.
    public static func socketPath(runtimeDirectory: String) -> String { runtimeDirectory + "/bus" }

    /// The address to reach a user's session bus socket at `path` from this process.
    ///
    /// dbus-daemon lets only the bus owner's uid connect (root is refused too). A root daemon therefore reaches
    /// another user's bus through sd-bus's `unixexec:` transport: `setpriv` drops to the user and execs
    /// `systemd-stdio-bridge`, which connects with the user's credentials and relays over a socket pair.
    public static func address(ofUserBusAt path: String, uid: UInt32) -> String {
        let bridge = "/usr/bin/systemd-stdio-bridge"
        let setpriv = "/usr/bin/setpriv"
        guard getuid() == 0, uid != 0, access(bridge, X_OK) == 0, access(setpriv, X_OK) == 0 else {
            return "unix:path=" + escape(path)
        }
        return "unixexec:path=\(setpriv),argv0=setpriv,argv1=--reuid=\(uid),argv2=--regid=\(primaryGroup(of: uid)),"
            + "argv3=--init-groups,argv4=\(bridge),argv5=\(escape("--bus-path=unix:path=" + escape(path)))"
    }

    private static func primaryGroup(of uid: UInt32) -> UInt32 {
        guard let entry = getpwuid(uid) else { return uid }
        return entry.pointee.pw_gid
    }

    /// Escapes a value for a D-Bus address (`,`, `=`, `;` and other bytes become `%XX`).
    private static func escape(_ value: String) -> String {
        var escaped = ""
        for byte in value.utf8 {
            let scalar = Unicode.Scalar(byte)
            if scalar.properties.isAlphabetic && byte < 0x80 || (byte >= 0x30 && byte <= 0x39)
                || "-_/.\\*".unicodeScalars.contains(scalar)
            {
                escaped.unicodeScalars.append(scalar)
            } else {
                escaped += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16)
            }
        }
        return escaped
    }
}
