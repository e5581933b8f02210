import FoundationEssentials
import ScreenTimeModel
import Synchronization

/// Focus of a KDE Plasma session (Wayland or X11), reported by a KWin script that the source loads.
///
/// KWin scripts cannot export D-Bus objects but can call them (`callDBus`), so the direction is: the source owns
/// `org.screentime.FocusSink` on the user's session bus and exports `/org/screentime/FocusSink` with
/// `WindowActivated(s pid, s resource_class, s desktop_file_name)`; it then loads
/// `packaging/kwin-script/screentime-focus/contents/code/main.js` through `org.kde.kwin.Scripting.loadScript`
/// and `start`. The script reports the active window at start and on every `windowActivated`
/// (`clientActivated` before Plasma 6). Only calls whose sender is the owner of `org.kde.KWin`, a `kwin_wayland` or
/// `kwin_x11` only root can change, are believed.
/// On `close()` the script is unloaded.
///
/// Idle time comes from KWin itself, asked as a Wayland client (`WaylandIdleConnection`: `ext_idle_notifier_v1`,
/// which KWin 5.27 and 6 offer) on the display socket that KWin, or the `kwin_wayland_wrapper` that started it, serves:
/// KWin says when the seat has had no input for `idleResolution` and when input comes back. Where that fails, and
/// `asksScreenSaver` allows it, from `org.freedesktop.ScreenSaver.GetSessionIdleTime` (seconds), asked every
/// `idleRefreshInterval` — any program of the user's may own that name, so not for a guardian's limited user; some
/// Plasma versions refuse it on Wayland. Otherwise `idleTime` stays nil (logind's `IdleHint` still applies).
public final class KWinFocusSource: FocusSource {
    /// `kwin`.
    public let name = "kwin"
    /// The plugin name the script is loaded under.
    public static let pluginName = "screentime-focus"
    /// Where the .deb installs the script (the KPackage layout `kpackagetool5 --type KWin/Script` uses).
    public static let defaultScriptPath = "/usr/share/kwin/scripts/screentime-focus/contents/code/main.js"
    static let sinkName = "org.screentime.FocusSink"
    static let sinkPath = "/org/screentime/FocusSink"

    private let bus: Bus
    private let idleRefreshInterval: Duration
    private let asksScreenSaver: Bool
    /// The protocol KWin's idle time comes from (`ext_idle_notifier_v1`, `org_kde_kwin_idle`); nil when it doesn't.
    public var idleProtocol: String? { idleConnection?.protocolName }
    /// Why KWin's idle notifications aren't followed, when they aren't.
    public let idleUnavailable: String?
    private let idleConnection: WaylandIdleConnection?
    private let state = Mutex(State())
    private let thread: EventThread

    private struct State {
        var window: FocusedWindow?
        var idle: IdleReading?
        /// What KWin's idle notifications say; nil when they aren't followed or stopped answering.
        var waylandIdle: MeasuredIdle?
        var reported = false
        var connected = true
        var statistics = FocusSourceStatistics()
    }

    /// Connects to the session bus at `busAddress`, exports the sink, loads and starts the KWin script.
    ///
    /// - Parameters:
    ///   - runtimeDirectory: the folder of the session's Wayland display sockets; nil: KWin's idle notifications
    ///     are not asked.
    ///   - waylandDisplay: the session's `WAYLAND_DISPLAY`, tried first; whichever socket is used, KWin must serve it.
    ///   - asksScreenSaver: whether `org.freedesktop.ScreenSaver`, whoever owns it, may tell the idle time when KWin's
    ///     idle notifications can't be followed; false for a guardian's limited user.
    ///   - idleResolution: how long without input before KWin says the seat is idle.
    public init(
        busAddress: String, scriptPath: String = KWinFocusSource.defaultScriptPath,
        idleRefreshInterval: Duration = .seconds(1), runtimeDirectory: String? = nil, waylandDisplay: String? = nil,
        asksScreenSaver: Bool = true, idleResolution: Duration = .seconds(5)
    ) throws(FocusSourceError) {
        self.idleRefreshInterval = idleRefreshInterval
        self.asksScreenSaver = asksScreenSaver
        let bus = try UserSessionBus.connect(address: busAddress)
        self.bus = bus
        guard let kwin = bus.nameOwner("org.kde.KWin", timeout: UserSessionBus.callTimeout) else {
            throw FocusSourceError(.noSourceForSession, "no KWin on the session bus at \(busAddress)")
        }
        // A program of the user's could own the name where KWin doesn't run (a GNOME session) and report anything.
        let kwinProcess = try FocusServer.checkConnection(
            kwin, owning: "org.kde.KWin", on: bus, runs: ["kwin_wayland", "kwin_x11"])
        (idleConnection, idleUnavailable) = Self.openIdleConnection(
            kwin: kwinProcess, runtimeDirectory: runtimeDirectory, waylandDisplay: waylandDisplay,
            resolution: idleResolution)
        guard FileManager.default.isReadableFile(atPath: scriptPath) else {
            throw FocusSourceError(.integrationMissing, "the Screen Time KWin script is not installed at \(scriptPath)")
        }
        thread = try EventThread.forFocusSource()
        try FocusSourceError.onBus { () throws(LinuxActivityError) in
            try bus.addObject(Self.sinkPath) { [weak self] message in
                guard message.member == "WindowActivated" else {
                    try? message.replyError(
                        name: "org.freedesktop.DBus.Error.UnknownMethod",
                        message: "only WindowActivated(sss) is served")
                    return true
                }
                guard message.sender == kwin else {
                    try? message.replyError(
                        name: "org.freedesktop.DBus.Error.AccessDenied",
                        message: "only KWin may report the active window")
                    return true
                }
                let pid = Int32(message.readString() ?? "") ?? 0
                let resourceClass = message.readString() ?? ""
                let desktopFile = message.readString() ?? ""
                let window: FocusedWindow? =
                    pid <= 0 && resourceClass.isEmpty
                    ? nil
                    : FocusedWindow(
                        pid: pid > 0 ? ProcessID(pid) : nil, windowClass: resourceClass.isEmpty ? nil : resourceClass,
                        desktopEntryID: desktopFile.isEmpty ? nil : desktopFile)
                self?.state.withLock { state in
                    state.statistics.eventsReceived += 1
                    state.reported = true
                    guard state.window != window else { return }
                    state.window = window
                    state.statistics.changesPublished += 1
                }
                try? message.reply()
                return true
            }
        }
        do {
            try bus.requestName(Self.sinkName)
        } catch {
            throw FocusSourceError(
                .connectionFailed, "cannot own \(Self.sinkName) on the session bus (another collector has it?)",
                underlying: error.errno)
        }
        if let loaded = try? callScripting("isScriptLoaded", [.string(Self.pluginName)]), loaded.readUnsigned() == 1 {
            _ = try? callScripting("unloadScript", [.string(Self.pluginName)])
        }
        let reply = try FocusSourceError.onBus { () throws(LinuxActivityError) in
            try callScripting("loadScript", [.string(scriptPath), .string(Self.pluginName)])
        }
        guard (reply.readInt32() ?? -1) >= 0 else {
            throw FocusSourceError(.integrationMissing, "KWin refused to load the script \(scriptPath)")
        }
        _ = try FocusSourceError.onBus { () throws(LinuxActivityError) in try callScripting("start") }
        let idle = idleConnection == nil && asksScreenSaver ? readIdleTime() : nil
        state.withLock {
            $0.idle = idle.map { IdleReading($0) }
            $0.waylandIdle = idleConnection.map { _ in MeasuredIdle() }
        }
        try FocusSourceError.onBus { () throws(LinuxActivityError) in
            try bus.addMatch(
                "type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged',arg0='org.kde.KWin'"
            ) { [weak self] _ in
                self?.state.withLock { $0.connected = false }
            }
        }
        thread.start(name: "screentime-kwin-focus") { [self] in runEventLoop() }
    }

    /// The window KWin last reported and the idle time; nil once KWin or the bus is gone, or before the script
    /// has reported anything.
    public func current() -> FocusReading? {
        let now = ContinuousClock.now
        return state.withLock { state in
            guard state.connected, !thread.isStopping, state.reported else { return nil }
            return FocusReading(
                window: state.window, idleTime: state.waylandIdle?.idleTime(at: now) ?? state.idle?.aged(to: now))
        }
    }

    /// How many reports the script has sent.
    public var statistics: FocusSourceStatistics { state.withLock { $0.statistics } }

    /// Unloads the script, gives the bus name back and stops the thread. Idempotent.
    public func close() { thread.stop() }

    private func runEventLoop() {
        // KWin's idle notifications wake the loop when they come; GetSessionIdleTime is asked at an interval.
        BusEventLoop.run(
            bus: bus, on: thread, refreshEvery: idleConnection == nil && asksScreenSaver ? idleRefreshInterval : nil,
            keepRunning: { state.withLock { $0.connected } }, following: idleConnection?.fileDescriptor,
            onReadable: {
                let idle = try? idleConnection?.read()
                state.withLock { $0.waylandIdle = idle }
                return idle != nil
            }
        ) {
            let idle = readIdleTime().map { IdleReading($0) }
            state.withLock { $0.idle = idle }
        }
        _ = try? callScripting("unloadScript", [.string(Self.pluginName)])
        bus.releaseName(Self.sinkName)
        state.withLock { $0.connected = false }
    }

    /// KWin's idle notifications on the display socket KWin serves, or its `kwin_wayland_wrapper` (which makes the
    /// socket and hands it to the KWin it starts, one only root can change); or why not.
    private static func openIdleConnection(
        kwin: ProcessID, runtimeDirectory: String?, waylandDisplay: String?, resolution: Duration
    ) -> (WaylandIdleConnection?, String?) {
        guard let runtimeDirectory else { return (nil, "no runtime directory to find KWin's Wayland display in") }
        var servers: Set<ProcessID> = [kwin]
        if let parent = ProcessStat.read(of: kwin, procRoot: "/proc")?.parent,
            (try? FocusServer.checkProgram(of: parent, isOneOf: ["kwin_wayland_wrapper"], serving: "KWin")) != nil
        {
            servers.insert(parent)
        }
        return WaylandIdleConnection.open(
            in: runtimeDirectory, display: waylandDisplay, servers: servers, resolution: resolution)
    }

    private func readIdleTime() -> Duration? {
        guard
            let reply = try? bus.call(
                destination: "org.freedesktop.ScreenSaver", path: "/ScreenSaver",
                interface: "org.freedesktop.ScreenSaver", member: "GetSessionIdleTime",
                timeout: UserSessionBus.callTimeout),
            let seconds = reply.readUnsigned()
        else { return nil }
        return .seconds(Int64(clamping: seconds))
    }

    /// Calls `member` of KWin's `org.kde.kwin.Scripting` at `/Scripting`.
    private func callScripting(_ member: String, _ arguments: [BusValue] = []) throws(LinuxActivityError)
        -> BusMessage
    {
        try bus.call(
            destination: "org.kde.KWin", path: "/Scripting", interface: "org.kde.kwin.Scripting", member: member,
            arguments: arguments, timeout: UserSessionBus.callTimeout)
    }
}
