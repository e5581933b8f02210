import ScreenTimeModel

/// Maps freedesktop menu categories (`Categories=` of a desktop entry) onto Screen Time's categories.
public enum CategoryMapping {
    /// Additional categories that say more than the main one, checked first, in this order.
    static let specific: [(String, ActivityCategory)] = [
        ("WebBrowser", .webBrowsers),
        ("Chat", .social), ("InstantMessaging", .social), ("IRCClient", .social), ("VideoConference", .social),
        ("Telephony", .social), ("Feed", .informationReading), ("News", .informationReading),
        ("Dictionary", .informationReading), ("Documentation", .informationReading),
        ("Literature", .informationReading), ("Viewer", .informationReading), ("Email", .productivityFinance),
        ("Finance", .productivityFinance), ("Maps", .travel), ("Sports", .healthFitness),
        ("MedicalSoftware", .healthFitness), ("Emulator", .games), ("IDE", .developerTools),
        ("TerminalEmulator", .utilities),
    ]
    /// Main categories, checked after the specific ones.
    static let main: [String: ActivityCategory] = [
        "Game": .games, "AudioVideo": .entertainment, "Audio": .entertainment, "Video": .entertainment,
        "Development": .developerTools, "Education": .education, "Science": .education, "Graphics": .creativity,
        "Office": .productivityFinance, "Network": .social, "Settings": .utilities, "System": .utilities,
        "Utility": .utilities,
    ]

    /// The Screen Time category of an app with these freedesktop categories; `.other` when none maps.
    public static func category(for freedesktopCategories: [String]) -> ActivityCategory {
        let present = Set(freedesktopCategories)
        for (name, category) in specific where present.contains(name) { return category }
        for name in freedesktopCategories { if let category = main[name] { return category } }
        return .other
    }
}
