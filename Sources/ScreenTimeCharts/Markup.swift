import ScreenTimeModel

/// Text made safe for HTML and SVG (XML) content and attribute values.
public enum Markup {
    /// `text` with control characters made visible (`\e`, `\x07`; see `String.escapingControlCharacters`), which
    /// XML does not allow even as references, then `&`, `<`, `>`, `"` and `'` as character references. App names come
    /// from desktop entries and processes: whoever wrote them may have put markup or escape codes in them.
    public static func escape(_ text: String) -> String {
        let visible = text.escapingControlCharacters()
        guard visible.contains(where: { "&<>\"'".contains($0) }) else { return visible }
        var result = ""
        result.reserveCapacity(visible.utf8.count + 16)
        for character in visible {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }

    /// A number as SVG writes coordinates: at most two decimals, no trailing zeros.
    static func number(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        if rounded == rounded.rounded() { return String(Int(rounded)) }
        var text = String(rounded)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }
}
