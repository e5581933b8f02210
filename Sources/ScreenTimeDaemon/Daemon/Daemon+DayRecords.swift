import Foundation
import LinuxActivity
import ScreenTimeEngine
import ScreenTimeModel
import UsageStore

extension Daemon {
    /// Records the notifications apps sent since the last tick, each for the app that sent it: the sending process's
    /// app as the collector resolves it, or, when it is gone, the app its `desktop-entry` hint names (if installed).
    func recordAppNotifications(at now: Now) {
        let sightings = appNotificationSightings.takeAll()
        guard !sightings.isEmpty else { return }
        let user = UserID(getuid())
        let catalog = collector.catalog(for: user)
        var records: [AppNotificationRecord] = []
        var labels: [AppLabelRecord] = []
        for sighting in sightings {
            var app = sighting.sender.flatMap { collector.application(of: $0) }?.id
            if app == nil, let entry = sighting.desktopEntry, catalog.desktopEntries.entries[entry] != nil {
                app = AppID(entry)
            }
            guard let app else {
                logger.debug("a notification from an app that could not be told", metadata: ["hint": "\(sighting.desktopEntry ?? "none")"])
                continue
            }
            let label = catalog.label(for: app)
            records.append(AppNotificationRecord(user: user, time: sighting.time, application: label.token))
            labels.append(AppLabelRecord(label, at: now))
        }
        perform(runtime.handle(.appsSeen(labels), at: now))
        perform(runtime.handle(.appNotificationsSeen(records), at: now))
    }

    /// Hands the runtime the labels of the apps in `snapshot` (in front or running) when the collector's sessions
    /// or apps may have changed since the last call; the runtime keeps the new ones in the store.
    func noteApps(in snapshot: ActivitySnapshot, at now: Now) {
        guard labelledRevision != collector.snapshotRevision else { return }
        labelledRevision = collector.snapshotRevision
        var labels: [AppLabelRecord] = []
        for session in snapshot.sessions {
            let catalog = collector.catalog(for: session.user)
            let ids = (session.foreground.map { [$0.id] } ?? []) + session.runningApps.map(\.id)
            for id in ids { labels.append(AppLabelRecord(catalog.label(for: id), at: now)) }
        }
        if !labels.isEmpty { perform(runtime.handle(.appsSeen(labels), at: now)) }
    }
}

extension AppLabelRecord {
    /// The store's row for an app as the catalog labels it, seen `now`.
    init(_ label: AppLabel, at now: Now) {
        self.init(
            token: label.token, appID: label.id, name: label.name, category: label.category,
            categoryToken: label.categoryToken, updatedAt: now.date)
    }
}
