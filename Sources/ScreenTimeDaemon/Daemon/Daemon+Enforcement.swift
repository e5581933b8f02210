import Enforcement
import Glibc
import LinuxActivity
import Logging
import ScreenTimeEngine
import ScreenTimeModel

extension Daemon {
    /// Makes the processes of shielded apps match the runtime's shields: each tick, and after a wake-up.
    func enforce(at now: Now) {
        // Not before the first tick has read the processes (a D-Bus request can be answered first): with none known
        // nothing would be shielded, and what a previous run held would be let go.
        guard collector.snapshotRevision > 0, !runtime.shields.isEmpty || !enforcer.isIdle else { return }
        let table = collector.table
        // Where each shielded process that may have moved is now: one this daemon moves into a scope (the table read
        // it before), and, for a user's daemon, one held in a frozen cgroup of its own that its owner moved elsewhere
        // (a guardian's scopes are root's: no user moves a process out of one), found here by the next tick. One in
        // a login session's scope stays there.
        if let observed = enforcementInputs?.observed {
            for processes in observed.values {
                for process in processes where process.confinable || (process.ownCgroup != nil && !settings.system) {
                    table.rereadControlGroup(of: process.identity.pid)
                }
            }
        }
        if enforcementInputs?.tableChanges != table.changeCount
            || enforcementInputs?.shieldRevision != runtime.shieldRevision
        {
            var desired: [AppID: ShieldMode] = [:]
            var observed: [AppID: [ObservedProcess]] = [:]
            for (user, shield) in runtime.shields {
                let catalog = collector.catalog(for: user)
                // App by app (a few dozen), not process by process: only a shielded app's processes are looked at.
                for (app, pids) in table.processIDsByApp {
                    let label = catalog.label(for: app)
                    let named = shield.applications.contains(label.token)
                    guard named || shield.applicationCategories.shields(label.token, in: label.categoryToken) else {
                        continue
                    }
                    var decided = false
                    for pid in pids {
                        guard let entry = table.entries[pid], entry.user == user, pid != Self.ownProcess,
                            named || Self.isLaunchedApp(entry, label: label, catalog: catalog)
                        else { continue }
                        if !decided {
                            // Once per app and user. Users who share an app and whose policies disagree on its mode
                            // get it frozen: no one's app is ended by another's policy.
                            let mode = runtime.mode(for: (label.token, label.categoryToken), app: app, user: user)
                            desired[app] = desired[app].map { $0 == mode ? mode : .freeze } ?? mode
                            decided = true
                        }
                        let (cgroup, confinable) = Self.placement(
                            of: pid, of: user, in: entry.controlGroup?.path, system: settings.system)
                        observed[app, default: []].append(
                            ObservedProcess(entry.identity, ownCgroup: cgroup, confinable: confinable))
                    }
                }
            }
            // The app's other processes (another user's, whose own shield of it ended; a desktop process a shield of
            // categories never holds): what was held of them is let go.
            for app in desired.keys {
                let held = Set(observed[app, default: []].map(\.identity.pid))
                for pid in table.processIDsByApp[app] ?? [] where !held.contains(pid) && pid != Self.ownProcess {
                    guard let entry = table.entries[pid] else { continue }
                    let (cgroup, _) = Self.placement(
                        of: pid, of: entry.user, in: entry.controlGroup?.path, system: settings.system)
                    observed[app, default: []].append(
                        ObservedProcess(entry.identity, ownCgroup: cgroup, shielded: false))
                }
            }
            runtime.keepCloseRequests(for: Set(desired.keys))
            enforcementInputs = (table.changeCount, runtime.shieldRevision, desired, observed)
        }
        guard let (_, _, desired, observed) = enforcementInputs else { return }
        report(enforcer.apply(desired: desired, observed: observed, at: ContinuousClock.now))
    }

    /// Whether a shield that covers categories (a downtime, a limit of categories or of all use) holds the process
    /// `entry` of the app `label`: an app the person launched — a flatpak, an app with a desktop entry shown in menus,
    /// or a program of their own (its file, or its script's, belongs to them: a game downloaded or copied into their
    /// home) — but not the system's programs known only by their file name, or by an entry hidden from menus, which
    /// is what the desktop's own processes are (X server, compositor, shell, D-Bus, audio, accessibility, the service
    /// manager, this daemon and its agent); whatever the person's rootless containers run is a program of their own.
    /// A shield that names an app holds it however it is known.
    static func isLaunchedApp(_ entry: ProcessEntry, label: AppLabel, catalog: AppCatalog) -> Bool {
        if entry.app?.source == .flatpak { return true }
        if let id = label.desktopEntryID, let desktopEntry = catalog.desktopEntries.entries[id] {
            return !desktopEntry.noDisplay
        }
        return AppResolver().runsUsersOwnProgram(entry)
    }

    /// Where a shield finds the process `pid` of `user`, in the cgroup at `path`: the cgroup it may freeze as the
    /// process's own, if any, and whether the process can be moved into a scope of its own instead.
    ///
    /// A user's daemon freezes an app's own scope or service, and moves a process out of a cgroup it shares only
    /// within its service manager's tree. A guardian's freezes only the scopes of its system manager it made, and each
    /// only for the process it made it for (what that process started later lives there too, but is not what the
    /// guardian found: a released terminal's scope holds every game run from it), since everything under
    /// user@UID.service is the user's to write (`cgroup.freeze`, `cgroup.procs`); it moves any other process.
    static func placement(of pid: ProcessID, of user: UserID, in path: String?, system: Bool) -> (
        ownCgroup: CgroupPath?, confinable: Bool
    ) {
        // The daemon's own unit is never rearranged.
        let movable = path.map { !$0.containsBytes("/screentimed.service") } ?? false
        if system {
            let own = path.flatMap {
                ControlGroup.guardianShieldScopeProcess($0, of: user) == pid ? CgroupPath($0) : nil
            }
            return (own, movable)
        }
        let own = path.map { CgroupPath($0) }.flatMap { $0.isAppOwnCgroup ? $0 : nil }
        return (own, movable && path?.containsBytes("/user@\(user.rawValue).service/") == true)
    }

    /// This process: never held, whatever its policy says.
    static let ownProcess = ProcessID(getpid())

    /// Between ticks, when the kernel reported processes that started or ran a new program while something is
    /// shielded: reads them and holds those of shielded apps at once (a blocked or shielded app started anew never
    /// runs on until the next tick).
    public func enforceNewProcesses(at now: Now) {
        collector.refreshProcesses()
        enforce(at: now)
    }

    /// Between ticks, while shielded processes are held by `SIGSTOP` alone: stops again any that a `SIGCONT` resumed,
    /// and terminates one resumed too often.
    public func recheckShields() {
        let outcome = enforcer.recheckStopped(at: ContinuousClock.now)
        report(outcome)
        for (app, process) in outcome.escalated {
            logger.notice(
                "shield escalated: an app resumed again and again is terminated",
                metadata: ["app": "\(app)", "process": "\(process)"].merging(JournalMessage.shieldEscalated.metadata) {
                    $1
                })
            let user = collector.table.entries[process.pid]?.user ?? settings.users?.first
            if let user {
                perform([
                    .warn(
                        user: user, title: "\(app.rawValue) was closed",
                        body: "Screen Time: it was resumed again and again while its time was up.")
                ])
            }
        }
    }

    private func report(_ report: EnforcementReport) {
        for failure in report.failures {
            logger.error(
                "enforcement failed; retrying next tick",
                metadata: ["action": "\(failure.action)", "error": "\(failure.error)"])
        }
        if let error = report.stateFileError {
            logger.error("could not write the enforcement state file", metadata: ["error": "\(error)"])
        }
        for entry in report.entries where entry.result == .done {
            logger.debug("enforced", metadata: ["action": "\(entry.action)"])
        }
    }
}
