import FoundationEssentials

/// An `MIT-MAGIC-COOKIE-1` credential for one X display, read from an Xauthority file.
///
/// The daemon connects to each user's display with that user's cookie. It does not set `XAUTHORITY` in its own
/// environment (process-wide, and racy with other threads); it parses the file and passes the cookie to
/// `xcb_connect_to_display_with_auth_info`.
///
/// Where the file is found, in order (`XAuthority.candidatePaths`):
/// 1. `XAUTHORITY` in the session's environment (the collector reads `/proc/PID/environ` of a process of the
///    session, usually its leader, with `ProcessEnvironment.read(pid:)`);
/// 2. `$RUNTIME_DIR/gdm/Xauthority` (GDM's X11 sessions);
/// 3. `$HOME/.Xauthority` (startx, LightDM, SDDM).
public struct XAuthority: Hashable, Sendable {
    /// The authorization protocol name, `MIT-MAGIC-COOKIE-1`.
    public var protocolName: String
    /// The secret cookie bytes.
    public var data: [UInt8]

    /// The protocol this reader understands; other entries (XDM-AUTHORIZATION-1, SUN-DES-1) are skipped.
    public static let magicCookieProtocol = "MIT-MAGIC-COOKIE-1"

    /// Creates a credential from its parts.
    public init(protocolName: String, data: [UInt8]) {
        self.protocolName = protocolName
        self.data = data
    }

    /// The files to try for a user's cookie, most specific first.
    public static func candidatePaths(environment: [String: String], home: String?, runtimeDirectory: String?)
        -> [String]
    {
        var paths: [String] = []
        if let path = environment["XAUTHORITY"], !path.isEmpty { paths.append(path) }
        if let runtimeDirectory { paths.append(runtimeDirectory + "/gdm/Xauthority") }
        if let home = environment["HOME"] ?? home { paths.append(home + "/.Xauthority") }
        return paths
    }

    /// Finds the cookie for `display` in the first candidate file that has one; nil when none does (the server
    /// may accept the connection without one, as `Xvfb -ac` or a `xhost +si:localuser` rule does).
    public static func find(for display: X11Display, in paths: [String]) -> (cookie: XAuthority, path: String)? {
        for path in paths {
            // A path the session names: a FIFO there must not hold the collector (nor a huge file fill it).
            guard let contents = FileSystem.readRegularFile(path, limit: 64 * 1024) else { continue }
            if let cookie = entry(for: display, in: contents) { return (cookie, path) }
        }
        return nil
    }

    /// Picks the cookie for `display` from the bytes of an Xauthority file (the format of `XauReadAuth(3)`).
    ///
    /// Matching follows libXau for local displays: a `FamilyLocal` entry for this host, then a `FamilyWild` one,
    /// then any `FamilyLocal` entry for the display number (the hostname often changes after login, which breaks
    /// libXau's own lookup). Remote displays match `FamilyWild` only; otherwise libxcb's own lookup applies.
    public static func entry(for display: X11Display, in bytes: [UInt8]) -> XAuthority? {
        let hostname = ProcessInfo.processInfo.hostName
        let shortHostname = hostname.split(separator: ".").first.map(String.init) ?? hostname
        var sameHost: XAuthority?
        var wild: XAuthority?
        var anyLocal: XAuthority?
        for record in records(in: bytes) where record.number == String(display.number) || record.number.isEmpty {
            guard record.name == magicCookieProtocol else { continue }
            let cookie = XAuthority(protocolName: record.name, data: record.data)
            switch record.family {
            case familyLocal where display.isLocal:
                if record.address == hostname || record.address == shortHostname {
                    sameHost = sameHost ?? cookie
                } else {
                    anyLocal = anyLocal ?? cookie
                }
            case familyWild:
                wild = wild ?? cookie
            default:
                continue
            }
        }
        return sameHost ?? wild ?? anyLocal
    }

    private static let familyLocal: UInt16 = 256
    private static let familyWild: UInt16 = 65535

    private struct Record {
        var family: UInt16
        var address: String
        var number: String
        var name: String
        var data: [UInt8]
    }

    private static func records(in bytes: [UInt8]) -> [Record] {
        var records: [Record] = []
        var offset = 0
        func readUInt16() -> UInt16? {
            guard offset + 2 <= bytes.count else { return nil }
            defer { offset += 2 }
            return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
        }
        func readCounted() -> [UInt8]? {
            guard let length = readUInt16(), offset + Int(length) <= bytes.count else { return nil }
            defer { offset += Int(length) }
            return Array(bytes[offset..<offset + Int(length)])
        }
        while offset < bytes.count {
            // A truncated last record (a file being rewritten by xauth) ends the list rather than failing it.
            guard let family = readUInt16(), let address = readCounted(), let number = readCounted(),
                let name = readCounted(), let data = readCounted()
            else { break }
            records.append(
                Record(
                    family: family, address: String(decoding: address, as: UTF8.self),
                    number: String(decoding: number, as: UTF8.self), name: String(decoding: name, as: UTF8.self),
                    data: data))
        }
        return records
    }
}
