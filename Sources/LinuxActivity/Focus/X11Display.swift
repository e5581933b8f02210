/// An X11 display name (`:0`, `:1.0`, `unix:2`, `localhost:10.0`) split into the parts that Xauthority entries
/// and connections are keyed by.
public struct X11Display: Hashable, Sendable, CustomStringConvertible {
    /// The name as given, passed to the connection unchanged.
    public var name: String
    /// The host part; empty or `unix` for a local display reached through its Unix socket.
    public var host: String
    /// The display number (`0` in `:0.1`).
    public var number: Int
    /// The screen number (`1` in `:0.1`), 0 when absent.
    public var screen: Int

    /// Parses a display name as `$DISPLAY` holds it; nil when it is not of the form `[host]:number[.screen]`.
    public init?(_ name: String) {
        guard let colon = name.lastIndex(of: ":") else { return nil }
        let host = String(name[..<colon])
        let rest = name[name.index(after: colon)...]
        let parts = rest.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let numberText = parts.first, let number = Int(numberText), number >= 0 else { return nil }
        var screen = 0
        if parts.count == 2 {
            guard let value = Int(parts[1]), value >= 0 else { return nil }
            screen = value
        }
        self.name = name
        self.host = host
        self.number = number
        self.screen = screen
    }

    /// Whether the display is reached through a local Unix socket, so that X-Resource can name client pids.
    public var isLocal: Bool { host.isEmpty || host == "unix" }

    public var description: String { name }
}
