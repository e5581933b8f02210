import Foundation

extension Calendar {
    /// The first instant of the local day `days` after the one that holds `date`: its midnight, or its first hour
    /// where a clock change skips midnight (Chile, Cuba, Egypt, Lebanon, the Azores). One day added to such a day's
    /// 01:00 start would put every later day at 01:00.
    public func startOfDay(_ days: Int, after date: Date) -> Date {
        let start = startOfDay(for: date)
        return startOfDay(for: self.date(byAdding: .day, value: days, to: start) ?? start)
    }

    /// The first instant of the local day `text` names (`YYYY-MM-DD`), or nil when it names none: a day whose
    /// midnight a clock change skips starts at 01:00.
    public func startOfDay(parsing text: String) -> Date? {
        let fields = text.split(separator: "-", omittingEmptySubsequences: false)
        guard text.utf8.count == 10, fields.map(\.utf8.count) == [4, 2, 2],
            fields.allSatisfy({ $0.utf8.allSatisfy { (0x30...0x39).contains($0) } }),
            let year = Int(fields[0]), let month = Int(fields[1]), let day = Int(fields[2]),
            // Noon is on every day, also one without a midnight.
            let noon = date(from: DateComponents(year: year, month: month, day: day, hour: 12))
        else { return nil }
        let read = dateComponents([.year, .month, .day], from: noon)
        guard read.year == year, read.month == month, read.day == day else { return nil }
        return startOfDay(for: noon)
    }
}
