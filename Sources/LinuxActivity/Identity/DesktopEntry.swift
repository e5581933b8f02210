/// A parsed `.desktop` file (freedesktop Desktop Entry Specification 1.5): the keys that identify and describe an app.
public struct DesktopEntry: Hashable, Sendable {
    /// The desktop-file id without `.desktop`: the path below `applications/` with `/` replaced by `-`.
    public var id: String
    public var type: String
    /// Names by locale; the key `""` holds the unlocalized `Name`.
    public var names: [String: String]
    /// The program and arguments of `Exec`, unquoted, with field codes removed.
    public var exec: [String]
    public var tryExec: String?
    public var startupWMClass: String?
    public var icon: String?
    public var categories: [String]
    public var noDisplay: Bool
    public var hidden: Bool
    /// The Screen Time extensions the app declares (`X-ScreenTime-Monitor=` and the others), as written.
    public var screenTimeExtensions: [ScreenTimeExtensionKind: String] = [:]

    /// The name for a locale such as `de_DE.UTF-8@euro`, with the specification's fallbacks
    /// (`lang_COUNTRY@MODIFIER`, `lang_COUNTRY`, `lang@MODIFIER`, `lang`, unlocalized).
    public func name(locale: String?) -> String {
        for key in DesktopEntry.localeKeys(locale) { if let name = names[key] { return name } }
        return names[""] ?? id
    }

    /// The `Name[…]` keys a locale such as `de_DE.UTF-8@euro` reads, most specific first (none for C, POSIX or
    /// none); the unlocalized `Name` follows them.
    public static func localeKeys(_ locale: String?) -> [String] {
        guard var locale, !locale.isEmpty, locale != "C", locale != "POSIX" else { return [] }
        var modifier: Substring?
        if let at = locale.firstIndex(of: "@") {
            modifier = locale[locale.index(after: at)...]
            locale = String(locale[..<at])
        }
        if let dot = locale.firstIndex(of: ".") { locale = String(locale[..<dot]) }
        let parts = locale.split(separator: "_", maxSplits: 1)
        let language = parts.first.map(String.init) ?? locale
        let country = parts.count > 1 ? String(parts[1]) : nil
        var keys: [String] = []
        if let country, let modifier { keys.append("\(language)_\(country)@\(modifier)") }
        if let country { keys.append("\(language)_\(country)") }
        if let modifier { keys.append("\(language)@\(modifier)") }
        keys.append(language)
        return keys
    }
}

extension DesktopEntry {
    /// Parses the text of a desktop file. Returns nil when it has no `[Desktop Entry]` group. Only the keys of that
    /// group are read; unknown keys, localized keys other than `Name`'s, comments and other groups (actions) are
    /// skipped. With `nameLocaleKeys` (`localeKeys(_:)` of a locale), only those translations of `Name` are kept.
    public init?(id: String, parsing text: String, nameLocaleKeys: Set<String>? = nil) {
        var inMainGroup = false
        var sawMainGroup = false
        var values: [String: String] = [:]
        var names: [String: String] = [:]
        for rawLine in text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline) {
            let line = rawLine.drop(while: { $0 == " " || $0 == "\t" })
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") {
                inMainGroup = line.trimmingTrailingSpaces() == "[Desktop Entry]"
                sawMainGroup = sawMainGroup || inMainGroup
                continue
            }
            guard inMainGroup, let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingTrailingSpaces()
            // The name's translation, when the key is one (`Name[de]`); other translated keys are never read.
            var nameLocale: String?
            if key.hasSuffix("]") {
                guard key.hasPrefix("Name[") else { continue }
                let locale = String(key.dropFirst(5).dropLast())
                guard nameLocaleKeys?.contains(locale) ?? true else { continue }
                nameLocale = locale
            } else if key != "Name", values[String(key)] != nil {
                continue
            }
            let value = DesktopEntry.unescapeValue(line[line.index(after: equals)...].drop(while: { $0 == " " }))
            if let nameLocale {
                names[nameLocale] = value
            } else if key == "Name" {
                names[""] = value
            } else {
                values[String(key)] = value
            }
        }
        guard sawMainGroup else { return nil }
        self.id = id
        self.type = values["Type"] ?? "Application"
        self.names = names
        self.exec = values["Exec"].map(DesktopEntry.splitExec) ?? []
        self.tryExec = values["TryExec"].flatMap { $0.isEmpty ? nil : $0 }
        self.startupWMClass = values["StartupWMClass"].flatMap { $0.isEmpty ? nil : $0 }
        self.icon = values["Icon"].flatMap { $0.isEmpty ? nil : $0 }
        self.categories = (values["Categories"] ?? "").split(separator: ";").map(String.init)
        self.noDisplay = values["NoDisplay"] == "true"
        self.hidden = values["Hidden"] == "true"
        for kind in ScreenTimeExtensionKind.allCases {
            if let value = values[kind.desktopEntryKey], !value.isEmpty { screenTimeExtensions[kind] = value }
        }
    }

    /// Decodes the value escapes `\s`, `\n`, `\t`, `\r`, `\\`; other backslashes are kept for `Exec` unquoting, which
    /// the specification applies after this general rule.
    static func unescapeValue(_ value: some StringProtocol) -> String {
        var result = ""
        var iterator = value.makeIterator()
        while let character = iterator.next() {
            guard character == "\\" else {
                result.append(character)
                continue
            }
            switch iterator.next() {
            case "s": result.append(" ")
            case "n": result.append("\n")
            case "t": result.append("\t")
            case "r": result.append("\r")
            case "\\": result.append("\\")
            case let other?: result.append("\\"); result.append(other)
            case nil: result.append("\\")
            }
        }
        return result
    }

    /// Splits an `Exec` value into arguments: double quotes group, `\` escapes `"`, `` ` ``, `$` and `\` inside them;
    /// field codes (`%f %F %u %U %i %c %k` and deprecated ones) are dropped and `%%` becomes `%`.
    static func splitExec(_ value: String) -> [String] {
        var arguments: [String] = []
        var current = ""
        var inQuotes = false
        var hasArgument = false
        var characters = Array(value)[...]
        while let character = characters.popFirst() {
            if inQuotes {
                if character == "\\", let next = characters.first, "\"`$\\".contains(next) {
                    current.append(characters.removeFirst())
                } else if character == "\"" {
                    inQuotes = false
                } else {
                    current.append(character)
                }
            } else if character == "\"" {
                inQuotes = true
                hasArgument = true
            } else if character == " " || character == "\t" {
                if hasArgument { arguments.append(current) }
                current = ""
                hasArgument = false
            } else if character == "\\", let next = characters.first {
                current.append(next)
                characters.removeFirst()
                hasArgument = true
            } else {
                current.append(character)
                hasArgument = true
            }
        }
        if hasArgument { arguments.append(current) }
        return arguments.compactMap { argument in
            if argument.count == 2, argument.first == "%" { return nil }
            return argument.contains("%%") ? argument.replacingAll("%%", with: "%") : argument
        }
    }
}

extension StringProtocol {
    func trimmingTrailingSpaces() -> SubSequence {
        var end = endIndex
        while end > startIndex, self[index(before: end)] == " " || self[index(before: end)] == "\t" {
            end = index(before: end)
        }
        return self[startIndex..<end]
    }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
