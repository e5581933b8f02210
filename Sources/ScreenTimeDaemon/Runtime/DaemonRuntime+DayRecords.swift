import Foundation
import ScreenTimeEngine
import ScreenTimeModel
import UsageStore

/// What the runtime remembers to record for reports as the day happens: the shields open now, the apps already
/// labelled in the store, and the day whose limits were written.
struct DayRecordState {
    /// Each user's shielded targets and when each began (wall and monotonic time).
    var openShields: [UserID: [ShieldedTime.Target: (start: Date, monotonic: Duration)]] = [:]
    /// The name and category last written for each token (written again when either changes).
    var labelled: [ApplicationToken: (name: String, category: String)] = [:]
    /// The local day (`YYYY-MM-DD`) whose limits were written with the policy in force; nil after a policy change.
    var limitsDay: String?
    /// When that day ends: until then a flush doesn't look at the calendar.
    var limitsDayEnd: Date?
}

extension DaemonRuntime {
    /// Notes the labels of apps the collector saw; only new or changed ones go to the store.
    mutating func noteApps(_ labels: [AppLabelRecord]) {
        for label in labels {
            let token = label.applicationToken
            if let known = dayRecords.labelled[token], known.name == label.name, known.category == label.category {
                continue
            }
            dayRecords.labelled[token] = (label.name, label.category)
            batch.records.appLabels.append(label)
        }
    }

    /// Notes a notification sent to `user` about `limit`.
    mutating func noteNotification(
        _ kind: NotificationRecord.Kind, to user: UserID, limit: String, title: String, at now: Now
    ) {
        batch.records.notifications.append(
            NotificationRecord(user: user, time: now.date, kind: kind, limit: limit, title: title))
    }

    /// Opens a shield interval for each target `shield` adds for `user` and closes the ones it drops; what stays
    /// shielded keeps its interval.
    mutating func noteShield(_ shield: EffectiveShield?, for user: UserID, at now: Now) {
        let targets = Set(shield.map(Self.targets) ?? [])
        var open = dayRecords.openShields[user] ?? [:]
        for (target, began) in open where !targets.contains(target) {
            batch.records.shieldIntervals.append(record(target, of: user, began: began, at: now))
            open[target] = nil
        }
        for target in targets where open[target] == nil {
            open[target] = (now.date, .nanoseconds(now.monotonic.nanoseconds))
            batch.records.shieldIntervals.append(record(target, of: user, began: open[target]!, at: now))
        }
        dayRecords.openShields[user] = open.isEmpty ? nil : open
    }

    /// Before a flush: every open shield extended to now, and today's limits if not written yet for this day and
    /// policy.
    mutating func noteDayRecords(at now: Now) {
        for (user, open) in dayRecords.openShields {
            for (target, began) in open {
                batch.records.shieldIntervals.append(record(target, of: user, began: began, at: now))
            }
        }
        if dayRecords.limitsDay != nil, let end = dayRecords.limitsDayEnd, now.date < end { return }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = now.timeZone ?? .current
        let local = calendar.dateComponents([.year, .month, .day, .weekday], from: now.date)
        let day = String(format: "%04d-%02d-%02d", local.year ?? 0, local.month ?? 0, local.day ?? 0)
        guard dayRecords.limitsDay != day, let weekday = local.weekday.flatMap(Policy.Weekday.init(rawValue:)) else {
            return
        }
        dayRecords.limitsDay = day
        dayRecords.limitsDayEnd = calendar.dateInterval(of: .day, for: now.date)?.end
        // Each user's own limits (in guardian mode their policy's, none for an exempt user): those seen so far, each
        // one seen later is recorded when first seen. A limit by weekday that does not name today does not limit
        // today.
        for user in (settings.users ?? knownUsers).sorted() {
            var recorded: Set<String> = []
            for limit in plan.limits
            where limit.applies(to: user) && (limit.weekday == nil || limit.weekday == weekday)
                && recorded.insert(limit.name).inserted
            {
                batch.records.dailyLimits.append(
                    DailyLimitRecord(
                        user: user, day: day, limit: limit.name, seconds: limit.daily.components.seconds,
                        recordedAt: now.date))
            }
        }
    }

    private func record(
        _ target: ShieldedTime.Target, of user: UserID, began: (start: Date, monotonic: Duration), at now: Now
    ) -> ShieldIntervalRecord {
        ShieldIntervalRecord(
            user: user, kind: target.kind, token: target.token, start: began.start, end: now.date,
            duration: .nanoseconds(now.monotonic.nanoseconds) - began.monotonic)
    }

    /// What a shield covers, as the store names it: each app, each category, or every app.
    static func targets(of shield: EffectiveShield) -> [ShieldedTime.Target] {
        shield.applications.map { ShieldedTime.Target(kind: .application, token: $0.rawValue) }
            + shield.applicationCategories.specific.keys.map {
                ShieldedTime.Target(kind: .category, token: $0.rawValue)
            }
            + (shield.applicationCategories.allExcept == nil ? [] : [ShieldedTime.Target(kind: .all, token: "")])
    }
}
