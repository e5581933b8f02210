import FoundationEssentials
import ScreenTimeModel
import Synchronization

/// Focus of a sway session (or another compositor that speaks sway's IPC), followed through `window` events.
///
/// At start the source reads the tree (`get_tree`) and subscribes to `window`, `workspace` and `shutdown`
/// events on the same socket; a dedicated thread then reads events as they come. A `focus` event carries the
/// view, so it is published without a query; events that may leave nothing focused (a view closed, a move to an
/// empty workspace) re-read the tree. Because sway sends no event when an idle inhibitor appears, the tree is
/// also re-read every `treeRefreshInterval` for `inhibit_idle`.
///
/// The window class is the view's `app_id`, or for XWayland views `window_properties.class`. sway does not
/// expose the time since the last input over IPC; the source asks it as a Wayland client instead, on the display
/// socket the same sway serves (`WaylandIdleConnection`: `ext_idle_notifier_v1`, else `org_kde_kwin_idle`), to be told
/// when the seat has had no input for `idleResolution` and when input comes back, and reads the idle time from that
/// to within `idleResolution`. Where that fails (`idleUnavailable` says why), `idleTime` stays nil and the collector
/// relies on logind's `IdleHint` (which swayidle sets).
public final class SwayFocusSource: FocusSource {
    /// `sway`.
    public let name = "sway"
    /// The IPC socket this source is connected to.
    public let socketPath: String
    private let connection: SwayIPCConnection
    private let treeRefreshInterval: Duration
    /// The protocol sway's idle time comes from (`ext_idle_notifier_v1`, `org_kde_kwin_idle`); nil when it doesn't.
    public var idleProtocol: String? { idleConnection?.protocolName }
    /// Why sway's idle time isn't measured, when it isn't.
    public let idleUnavailable: String?
    private let idleConnection: WaylandIdleConnection?
    private let state = Mutex(State())
    private let thread: EventThread

    private struct State {
        var window: FocusedWindow?
        var idleInhibited = false
        /// What the idle connection says; nil when it doesn't answer.
        var idle: MeasuredIdle?
        var connected = true
        var statistics = FocusSourceStatistics()
    }

    /// Connects to sway's socket, reads the focused view and starts following events.
    ///
    /// - Parameters:
    ///   - socketPath: `SWAYSOCK`, or a `sway-ipc.UID.PID.sock` in the user's runtime directory.
    ///   - treeRefreshInterval: how often the tree is re-read for idle inhibitors (focus never needs it).
    ///   - session: for a guardian's limited user, the logind session whose own compositor the sway must be
    ///     (`FocusServer.checkIsSessionsOwn`); nil believes any sway only root can change.
    ///   - runtimeDirectory: the folder of the Wayland display sockets; nil: the IPC socket's folder.
    ///   - waylandDisplay: the session's `WAYLAND_DISPLAY`, tried first; whichever socket is used, it must be served
    ///     by the sway that serves `socketPath`.
    ///   - idleResolution: how long without input before sway says the seat is idle; the idle time is known to within
    ///     it.
    public init(
        socketPath: String, treeRefreshInterval: Duration = .seconds(2), session: SessionCompositor? = nil,
        runtimeDirectory: String? = nil, waylandDisplay: String? = nil, idleResolution: Duration = .seconds(5)
    )
        throws(FocusSourceError)
    {
        self.socketPath = socketPath
        self.treeRefreshInterval = treeRefreshInterval
        connection = try SwayIPCConnection(path: socketPath, session: session)
        let folder = runtimeDirectory ?? String(socketPath[..<(socketPath.lastIndex(of: "/") ?? socketPath.endIndex)])
        (idleConnection, idleUnavailable) = WaylandIdleConnection.open(
            in: folder, display: waylandDisplay, servers: [connection.server], resolution: idleResolution)
        thread = try EventThread.forFocusSource()
        try connection.send(.getTree)
        let tree = try Self.decode(SwayNode.self, from: try connection.receive().payload)
        try connection.send(.subscribe, #"["window","workspace","shutdown"]"#)
        let reply = try connection.receive()
        guard String(decoding: reply.payload, as: UTF8.self).contains("true") else {
            throw FocusSourceError(.protocolViolation, "sway refused the event subscription")
        }
        state.withLock {
            $0.window = tree.focusedNode()?.focusedWindow
            $0.idleInhibited = tree.anyInhibitsIdle()
            $0.idle = idleConnection.map { _ in MeasuredIdle() }
            $0.statistics.queries = 1
        }
        thread.start(name: "screentime-sway-focus") { [self] in runEventLoop() }
    }

    /// The latest focused view, the seat's idle time (zero while it has had input within `idleResolution`; nil when
    /// not measured) and whether a view inhibits idle; nil once sway is gone or the source closed.
    public func current() -> FocusReading? {
        let now = ContinuousClock.now
        return state.withLock { state in
            guard state.connected, !thread.isStopping else { return nil }
            return FocusReading(
                window: state.window, idleTime: state.idle?.idleTime(at: now), idleInhibited: state.idleInhibited)
        }
    }

    /// How many events the source has received and acted on.
    public var statistics: FocusSourceStatistics { state.withLock { $0.statistics } }

    /// Stops the event thread and waits for it to end. Idempotent.
    public func close() { thread.stop() }

    private func runEventLoop() {
        var treeRequested = false
        var nextRefresh = ContinuousClock.now + treeRefreshInterval
        var idle = idleConnection
        loop: while !thread.isStopping {
            let ready: [Bool]
            do {
                ready = try Readiness.wait(
                    for: [connection.fileDescriptor, thread.wakeup.fileDescriptor]
                        + (idle.map { [$0.fileDescriptor] } ?? []),
                    timeout: max(.zero, nextRefresh - ContinuousClock.now))
            } catch {
                break loop
            }
            if ready[1] { thread.wakeup.drain() }
            if thread.isStopping { break loop }
            if let connection = idle, ready.count > 2, ready[2] {
                idle = follow(connection)
            }
            do {
                if ready[0] {
                    let message = try connection.receive()
                    switch handle(message) {
                    case .nothing: break
                    case .readTree:
                        if !treeRequested {
                            try connection.send(.getTree)
                            treeRequested = true
                        }
                    case .treeRead: treeRequested = false
                    case .stop: break loop
                    }
                }
                if ContinuousClock.now >= nextRefresh {
                    nextRefresh = ContinuousClock.now + treeRefreshInterval
                    if !treeRequested {
                        try connection.send(.getTree)
                        treeRequested = true
                    }
                }
            } catch {
                break loop
            }
        }
        state.withLock { $0.connected = false }
    }

    /// Reads what the idle connection sent and publishes the seat's idleness; nil once the connection is lost (the
    /// idle time is then no longer measured).
    private func follow(_ connection: WaylandIdleConnection) -> WaylandIdleConnection? {
        let idle = try? connection.read()
        state.withLock { $0.idle = idle }
        return idle.map { _ in connection }
    }

    private enum Next {
        case nothing, readTree, treeRead, stop
    }

    private func handle(_ message: (type: UInt32, payload: [UInt8])) -> Next {
        switch message.type {
        case SwayIPCConnection.windowEvent:
            state.withLock { $0.statistics.eventsReceived += 1 }
            guard let event = try? Self.decode(SwayWindowEvent.self, from: message.payload) else { return .readTree }
            switch event.change {
            case "focus":
                publish(event.container.focusedWindow, idleInhibited: nil)
                return .nothing
            case "close", "move", "floating":
                return .readTree
            default:
                return .nothing
            }
        case SwayIPCConnection.workspaceEvent:
            guard let event = try? Self.decode(SwayWorkspaceEvent.self, from: message.payload) else { return .readTree }
            return event.change == "focus" || event.change == "empty" ? .readTree : .nothing
        case SwayIPCConnection.shutdownEvent:
            return .stop
        case SwayIPCConnection.MessageType.getTree.rawValue:
            guard let tree = try? Self.decode(SwayNode.self, from: message.payload) else { return .treeRead }
            state.withLock { $0.statistics.queries += 1 }
            publish(tree.focusedNode()?.focusedWindow, idleInhibited: tree.anyInhibitsIdle())
            return .treeRead
        default:
            return .nothing
        }
    }

    private func publish(_ window: FocusedWindow?, idleInhibited: Bool?) {
        state.withLock { state in
            if let idleInhibited { state.idleInhibited = idleInhibited }
            guard state.window != window else { return }
            state.window = window
            state.statistics.changesPublished += 1
        }
    }

    private static func decode<T: Decodable>(_ type: T.Type, from payload: [UInt8]) throws(FocusSourceError) -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(payload))
        } catch {
            throw FocusSourceError(.protocolViolation, "sway sent JSON that does not decode as \(type): \(error)")
        }
    }

    /// The sway sockets of user `uid` in `runtimeDirectory` (`sway-ipc.UID.PID.sock`), newest first.
    public static func sockets(in runtimeDirectory: String, uid: UserID) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: runtimeDirectory)) ?? []
        let paths = names.filter { $0.hasPrefix("sway-ipc.\(uid.rawValue).") && $0.hasSuffix(".sock") }
            .map { runtimeDirectory + "/" + $0 }
        func modified(_ path: String) -> Date {
            ((try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date) ?? .distantPast
        }
        return paths.sorted { modified($0) > modified($1) }
    }
}
