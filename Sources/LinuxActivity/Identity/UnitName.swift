import ScreenTimeModel

/// App identity carried by a systemd unit name, as desktops and launchers name the scopes and services they start
/// (systemd's "Desktop Environment Integration" conventions).
public enum UnitName {
    /// The app id a unit name carries, or nil for units that name no app (session scopes, slices, system services).
    ///
    /// Recognized forms (the app id is systemd-escaped, so it contains no `-`; `\x2d` decodes to `-`):
    /// - `app-<launcher>-<id>-<random>.scope` and `app-<id>-<random>.scope` (GNOME, KDE, flatpak: launcher `flatpak`)
    /// - `app-<launcher>-<id>@<random>.service` and `app-<id>@<random>.service`
    /// - `app-<launcher>-<id>-autostart.service`, `app-<id>.service`
    /// - `snap.<name>.<app>-<uuid>.scope` → `<name>_<app>` (the snap's desktop-file id)
    public static func appID(of unitName: some StringProtocol) -> AppID? {
        let unit = Substring(String(unitName))
        if unit.hasPrefix("snap."), unit.hasSuffix(".scope") {
            let body = unit.dropFirst(5).dropLast(6)
            let parts = body.split(separator: ".", maxSplits: 1)
            guard parts.count == 2, !parts[0].isEmpty else { return nil }
            // `<app>-<uuid>`: the app name may itself contain dashes; the uuid is the last 5 dash-separated groups.
            var appParts = parts[1].split(separator: "-", omittingEmptySubsequences: false)
            if appParts.count > 5 { appParts.removeLast(5) } else if appParts.count > 1 { appParts.removeLast() }
            let app = appParts.joined(separator: "-")
            guard !app.isEmpty else { return nil }
            return AppID("\(parts[0])_\(app)")
        }
        guard unit.hasPrefix("app-") else { return nil }
        let isScope = unit.hasSuffix(".scope")
        guard isScope || unit.hasSuffix(".service") else { return nil }
        var body = unit.dropFirst(4).dropLast(isScope ? 6 : 8)
        var hasInstance = false
        if !isScope, let at = body.firstIndex(of: "@") {
            body = body[..<at]
            hasInstance = true
        }
        var parts = body.split(separator: "-", omittingEmptySubsequences: false)
        guard !parts.isEmpty, !parts.contains(where: \.isEmpty) else { return nil }
        if isScope || (!hasInstance && parts.count > 1 && parts.last == "autostart") {
            guard parts.count >= 2 else { return nil }
            parts.removeLast()  // the random suffix (or "autostart")
        }
        let id: Substring
        switch parts.count {
        case 1: id = parts[0]
        case 2: id = parts[1]  // launcher, id
        default: return nil
        }
        let decoded = unescape(id)
        return decoded.isEmpty ? nil : AppID(decoded)
    }

    /// Decodes systemd unit-name escaping (`\xNN`), see systemd-escape(1).
    public static func unescape(_ text: some StringProtocol) -> String {
        var bytes: [UInt8] = []
        let utf8 = Array(text.utf8)
        var index = 0
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "\\"), index + 3 < utf8.count, utf8[index + 1] == UInt8(ascii: "x"),
                let value = UInt8(String(decoding: utf8[(index + 2)...(index + 3)], as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                index += 4
            } else {
                bytes.append(utf8[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
