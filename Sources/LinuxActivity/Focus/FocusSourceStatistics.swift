/// Counters that show how a focus source learns about focus: from events, not from polling.
public struct FocusSourceStatistics: Hashable, Sendable {
    /// Focus notifications received from the server or compositor (X11 PropertyNotify on `_NET_ACTIVE_WINDOW`,
    /// sway `window` events, KWin script calls, GNOME Shell extension signals).
    public var eventsReceived: Int = 0
    /// Times the published focused window changed.
    public var changesPublished: Int = 0
    /// Full queries of the focus state (the initial one, and re-reads after events that need one).
    public var queries: Int = 0

    /// Creates zeroed counters.
    public init() {}
}
