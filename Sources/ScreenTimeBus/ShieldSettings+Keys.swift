import ScreenTimeModel

/// The settings of a store one at a time, as `Settings1.SetSetting` and `ClearSetting` name them: the daemon sets one
/// from its key and JSON, a client sends those it changed.
extension ShieldSettings {
    /// Sets the setting `key` to the value `json` holds (that field's JSON in `ShieldSettings`' own); clears it when
    /// `json` is empty.
    public mutating func setSetting(_ key: String, json: String) throws(ScreenTimeBusError) {
        func value<Value: Decodable>(_ type: Value.Type) throws(ScreenTimeBusError) -> Value? {
            json.isEmpty ? nil : try BusJSON.decode(Value.self, from: json)
        }
        switch key {
        case "applications": applications = try value(Set<ApplicationToken>.self)
        case "applicationCategories": applicationCategories = try value(ActivityCategoryPolicy<ApplicationToken>.self)
        case "webDomains": webDomains = try value(Set<WebDomainToken>.self)
        case "webDomainCategories": webDomainCategories = try value(ActivityCategoryPolicy<WebDomainToken>.self)
        case "blockedApplications": blockedApplications = try value(Set<ApplicationToken>.self)
        default:
            throw ScreenTimeBusError(
                .invalidArgument,
                "unknown setting \"\(key)\": use applications, applicationCategories, webDomains, "
                    + "webDomainCategories or blockedApplications")
        }
    }

    /// The settings that differ between `old` and `new`, each with its key and its value in `new` as JSON (empty
    /// when cleared): what `setSetting(_:json:)` takes.
    public static func changedSettings(from old: ShieldSettings, to new: ShieldSettings) throws(ScreenTimeBusError)
        -> [(key: String, json: String)]
    {
        var changes: [(key: String, json: String)] = []
        func change<Value: Encodable & Equatable>(_ key: String, _ old: Value?, _ new: Value?)
            throws(ScreenTimeBusError)
        {
            guard old != new else { return }
            changes.append((key, try new.map { value throws(ScreenTimeBusError) in try BusJSON.encode(value) } ?? ""))
        }
        try change("applications", old.applications, new.applications)
        try change("applicationCategories", old.applicationCategories, new.applicationCategories)
        try change("webDomains", old.webDomains, new.webDomains)
        try change("webDomainCategories", old.webDomainCategories, new.webDomainCategories)
        try change("blockedApplications", old.blockedApplications, new.blockedApplications)
        return changes
    }
}
