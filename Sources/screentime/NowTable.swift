import LinuxActivity
import ScreenTimeModel

/// The text form of `screentime now`.
enum NowTable {
    static func render(_ snapshot: ActivitySnapshot, tally: UsageTally?) -> String {
        var lines: [String] = []
        if snapshot.sessions.isEmpty { lines.append("No login sessions.") }
        for session in snapshot.sessions {
            let place = [session.seat, session.tty ?? session.display].compactMap { $0 }.joined(separator: " ")
            let flags = [
                session.active ? "active" : "inactive", session.idle ? "idle" : nil, session.locked ? "locked" : nil,
                session.idleInhibited ? "idle-inhibited" : nil, session.remote ? "remote" : nil,
            ].compactMap { $0 }.joined(separator: ",")
            lines.append(
                "Session \(session.id) · \(session.userName) (uid \(session.user)) · \(session.type)"
                    + (place.isEmpty ? "" : " on \(place)") + " · \(flags) · usage \(describe(session.presence))")
            let focus: String
            switch session.focus {
            case .terminal: focus = "terminal foreground group"
            case .window: focus = "focused window from \(session.focusSource)"
            case .fallback:
                focus = "NOT TRACKED (\(session.focusSource)): every running app counts as in use"
            }
            lines.append("  focus: \(focus); idle from \(session.idleSource)")
            if let front = session.foreground {
                lines.append(
                    "  front: \(front.name.oneLine) [\(front.id.rawValue.oneLine)] · \(front.category.displayName) · pid "
                        + "\(front.pid.map(String.init(describing:)) ?? "-") · token \(front.token.rawValue.prefix(12))"
                        + " · by \(front.identifiedBy.rawValue)")
            } else if session.focus != .fallback {
                lines.append("  front: nothing")
            }
            let apps = session.runningApps.map { "\($0.name.oneLine) [\($0.id.rawValue.oneLine)] ×\($0.processCount)" }
            lines.append("  apps:  " + (apps.isEmpty ? "none" : apps.joined(separator: " · ")))
        }
        if let tally, !tally.seconds.isEmpty {
            lines.append("")
            lines.append("Used since start:")
            for (user, apps) in tally.seconds.sorted(by: { $0.key < $1.key }) {
                let name = snapshot.sessions.first { $0.user == user }?.userName ?? String(user.rawValue)
                for (app, time) in apps.sorted(by: { $0.value > $1.value }) {
                    lines.append(
                        "  \(name)  \(format(time))  \((tally.names[app] ?? app.rawValue).oneLine) [\(app.rawValue.oneLine)]"
                    )
                }
            }
        }
        return lines.joined(separator: "\n")
    }

    static func describe(_ presence: SessionPresence) -> String {
        switch presence {
        case .active: "counts"
        case .idle: "paused (idle)"
        case .locked: "paused (locked)"
        case .background: "paused (not the active session)"
        }
    }

    static func format(_ duration: Duration) -> String {
        let total = Int(duration.components.seconds)
        let (hours, minutes, seconds) = (total / 3600, total / 60 % 60, total % 60)
        return hours > 0 ? "\(hours)h\(pad(minutes))m\(pad(seconds))s" : "\(minutes)m\(pad(seconds))s"
    }

    private static func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
