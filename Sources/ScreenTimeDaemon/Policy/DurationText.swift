/// Durations written for people: `45s`, `20m`, `2h`, `1h30m`, `1h5m30s` (units in this order, each once).
enum DurationText {
    /// The duration `text` spells, or nil when it is not one.
    static func parse(_ text: String) -> Duration? {
        let units: [(Character, Int64)] = [("h", 3600), ("m", 60), ("s", 1)]
        var seconds: Int64 = 0
        var number = ""
        var nextUnit = 0
        var sawUnit = false
        for character in text {
            if character.isASCII && character.isNumber {
                number.append(character)
                guard number.count <= 6 else { return nil }
                continue
            }
            guard !number.isEmpty, let index = units[nextUnit...].firstIndex(where: { $0.0 == character }) else {
                return nil
            }
            seconds += Int64(number)! * units[index].1
            number = ""
            nextUnit = index + 1
            sawUnit = true
        }
        guard number.isEmpty, sawUnit else { return nil }
        return .seconds(seconds)
    }

    /// The shortest spelling: `1h30m`, `45s`, `0s`.
    static func format(_ duration: Duration) -> String {
        let total = duration.components.seconds
        if total == 0 { return "0s" }
        let (hours, minutes, seconds) = (total / 3600, total % 3600 / 60, total % 60)
        return (hours > 0 ? "\(hours)h" : "") + (minutes > 0 ? "\(minutes)m" : "") + (seconds > 0 ? "\(seconds)s" : "")
    }
}
