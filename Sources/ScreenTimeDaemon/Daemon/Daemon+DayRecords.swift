import Foundation
import LinuxActivity
import ScreenTimeEngine
import ScreenTimeModel
import UsageStore

extension Daemon {
    /// Hands the runtime the labels of the apps in `snapshot` (in front or running) when the collector's sessions
    /// or apps may have changed since the last call; the runtime keeps the new ones in the store.
    func noteApps(in snapshot: ActivitySnapshot, at now: Now) {
        guard labelledRevision != collector.snapshotRevision else { return }
        labelledRevision = collector.snapshotRevision
        var labels: [AppLabelRecord] = []
        for session in snapshot.sessions {
            let catalog = collector.catalog(for: session.user)
            let ids = (session.foreground.map { [$0.id] } ?? []) + session.runningApps.map(\.id)
            for id in ids {
                let label = catalog.label(for: id)
                labels.append(
                    AppLabelRecord(
                        token: label.token, appID: label.id, name: label.name, category: label.category,
                        categoryToken: label.categoryToken, updatedAt: now.date))
            }
        }
        if !labels.isEmpty { perform(runtime.handle(.appsSeen(labels), at: now)) }
    }
}
