import Foundation
import ScreenTimeModel
import Testing
import UsageStore

#if canImport(FoundationXML)
import FoundationXML
#endif

/// The figures of `screentime report` (the built executable) over a real ledger holding every kind of record.
@Suite struct ReportFiguresTests {
    static let gameName = "Game <Deluxe> & \"Co\"\u{1B}[31m"
    let user = UserID(getuid())
    let game = AppUse(
        application: ApplicationToken(rawValue: "tok-game"), category: ActivityCategoryToken(rawValue: "cat-games"))
    let yesterday = Calendar.current.date(byAdding: .day, value: -1, to: Calendar.current.startOfDay(for: Date()))!
    var dayBefore: Date { Calendar.current.date(byAdding: .day, value: -1, to: yesterday)! }
    var ten: Date { Calendar.current.date(byAdding: .hour, value: 10, to: yesterday)! }

    /// Yesterday: 20 minutes of the game from 10:00, a warning and a shield notification, the game shielded 30
    /// minutes, 15 minutes of extra time, a limit of 20 minutes. The day before: 10 minutes. The game's label was
    /// recorded (it is uninstalled now: no desktop entry names it).
    func ledger(in directory: ScratchDirectory, user: UserID? = nil) throws -> String {
        let user = user ?? self.user
        let path = directory.path + "/usage.sqlite"
        let database = try UsageDatabase.open(at: path)
        var recorder = UsageRecorder(database: database, bootID: "boot")
        recorder.record(
            UsageInterval(
                user: user, session: SessionID("seat0"), use: game, start: ten, end: ten + 1200,
                duration: .seconds(1200)))
        let before = Calendar.current.date(byAdding: .hour, value: 10, to: dayBefore)!
        recorder.record(
            UsageInterval(
                user: user, session: SessionID("seat0"), use: game, start: before, end: before + 600,
                duration: .seconds(600)))
        recorder.record(Pickup(user: user, session: SessionID("seat0"), application: game.application, time: ten))
        recorder.record(
            ExtraTimeGrant(user: user, target: "games", seconds: 900, grantedAt: ten + 3000, reason: "asked"))
        var records = DayRecords()
        records.appLabels = [
            AppLabelRecord(
                token: game.application, appID: AppID("org.example.Game"), name: Self.gameName, category: .games,
                categoryToken: game.category, updatedAt: ten)
        ]
        records.notifications = [
            NotificationRecord(
                user: user, time: ten + 900, kind: .warning, limit: "games", title: "5 min left for games"),
            NotificationRecord(
                user: user, time: ten + 1200, kind: .shield, limit: "games", title: "Time limit reached: games"),
        ]
        records.appNotifications = [AppNotificationRecord(user: user, time: ten + 300, application: game.application)]
        records.shieldIntervals = [
            ShieldIntervalRecord(
                user: user, kind: .application, token: game.application.rawValue, start: ten + 1200, end: ten + 3000,
                duration: .seconds(1800))
        ]
        records.dailyLimits = [
            DailyLimitRecord(
                user: user, day: Self.dayName(yesterday), limit: "games", seconds: 1200, recordedAt: yesterday)
        ]
        recorder.record(records)
        try recorder.flush()
        return path
    }

    static func dayName(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: date)
    }

    func report(
        _ arguments: String, _ directory: ScratchDirectory, path: String, prefix: String = ""
    ) throws -> CommandResult {
        try #require(
            FileManager.default.isExecutableFile(atPath: StatusOverBusTests.screentime),
            "build with --build-tests first")
        return try CommandResult(
            "\(prefix)'\(StatusOverBusTests.screentime)' report \(arguments) --database '\(path)' --token-key '\(directory.path)/token.key'",
            in: directory)
    }

    @Test func jsonCarriesEveryFigureOfTheDayAndTheChangeAgainstTheDayBefore() throws {
        let directory = try ScratchDirectory()
        let path = try ledger(in: directory)
        let result = try report("--yesterday --format json", directory, path: path)
        #expect(result.status == 0, "\(result.output)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect(object["totalSeconds"] as? Int == 1200)
        #expect(object["dailyAverageSeconds"] as? Int == 1200)
        #expect((object["previous"] as? [String: Any])?["totalSeconds"] as? Int == 600)
        #expect(object["dailyAverageChangePercent"] as? Int == (1200 - 600) * 100 / 600)
        #expect(object["pickups"] as? Int == 1)
        #expect(object["firstPickup"] as? String == ISO8601DateFormatter.local.string(from: ten))
        #expect((object["longestSession"] as? [String: Any])?["seconds"] as? Int == 1200)
        #expect((object["topApps"] as? [[String: Any]])?.first?["name"] as? String == Self.gameName)
        #expect((object["topApps"] as? [[String: Any]])?.first?["id"] as? String == "org.example.Game")
        #expect(
            (object["topCategories"] as? [[String: Any]])?.first?["id"] as? String == ActivityCategory.games.rawValue)
        #expect((object["notifications"] as? [String: Any])?["total"] as? Int == 3)
        #expect((object["notifications"] as? [String: Any])?["apps"] as? Int == 1)
        #expect((object["notifications"] as? [String: Any])?["shields"] as? Int == 1)
        #expect(object["shieldedSeconds"] as? Int == 1800)
        #expect(object["extraTimeSeconds"] as? Int == 900)
        let limits = object["limits"] as? [[String: Any]]
        #expect(limits?.count == 1)
        #expect(limits?.first?["day"] as? String == Self.dayName(yesterday))
        #expect(limits?.first?["seconds"] as? Int == 1200)
    }

    @Test func thisWeekByDayHasARowForEachOfItsSevenDaysThoseToComeEmpty() throws {
        let directory = try ScratchDirectory()
        let path = try ledger(in: directory)
        let result = try report("--week --by day --format json", directory, path: path)
        #expect(result.status == 0, "\(result.output)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let rows = try #require(object["rows"] as? [[String: Any]])
        let week = try #require(Calendar.current.dateInterval(of: .weekOfYear, for: Date()))
        #expect(rows.count == 7)
        #expect(rows.first?["start"] as? String == ISO8601DateFormatter.local.string(from: week.start))
        #expect(rows.last?["end"] as? String == ISO8601DateFormatter.local.string(from: week.end))
        // The figures are those of the days so far: the daily average is not spread over days to come.
        let today = Calendar.current.startOfDay(for: Date())
        let daysSoFar = (Calendar.current.dateComponents([.day], from: week.start, to: today).day ?? 0) + 1
        #expect(object["days"] as? Int == daysSoFar)
        for row in rows.dropFirst(daysSoFar) { #expect(row["seconds"] as? Int == 0) }
    }

    @Test func theTableNamesEveryInsightAndShowsNoEscapeCode() throws {
        let directory = try ScratchDirectory()
        let path = try ledger(in: directory)
        let result = try report("--yesterday", directory, path: path)
        #expect(result.status == 0, "\(result.output)")
        for label in [
            "Screen time:", "Daily average:", "+100 %", "Most used apps:", "Categories:", "Pickups:",
            "First pickup:", "Longest session:",
            "Notifications:   3 (1 from apps", "Time shielded:   30m00s", "Extra time:      15m00s", "Limits:          games",
        ] {
            #expect(result.output.contains(label), "\(label) in \(result.output)")
        }
        #expect(result.output.contains("Game <Deluxe>"))
        #expect(!result.output.contains("\u{1B}"))
        // The range's last day is yesterday, not the midnight after it.
        let day = Self.dayName(yesterday)
        #expect(result.output.hasPrefix("\(day) – \(day), 1 day\n"), "\(result.output)")
    }

    /// Chile's clocks skip 2026-09-06 00:00 (to 01:00), Egypt's 2026-04-24 00:00: such a day starts at 01:00, the
    /// next one at midnight again, and either can be named.
    @Test func aDayWhoseMidnightIsSkippedStartsAtOneAndTheNextAtMidnight() throws {
        let directory = try ScratchDirectory()
        let path = try ledger(in: directory)
        let chile = try report(
            "--from 2026-09-05 --to 2026-09-08 --by day --format json", directory, path: path,
            prefix: "TZ=America/Santiago ")
        #expect(chile.status == 0, "\(chile.output)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(chile.output.utf8)) as? [String: Any])
        let rows = try #require(object["rows"] as? [[String: Any]])
        #expect(
            rows.map { $0["start"] as? String } == [
                "2026-09-05T00:00:00-04:00", "2026-09-06T01:00:00-03:00", "2026-09-07T00:00:00-03:00",
                "2026-09-08T00:00:00-03:00",
            ])
        #expect(rows.last?["end"] as? String == "2026-09-09T00:00:00-03:00")
        let egypt = try report(
            "--from 2026-04-24 --to 2026-04-24 --by day --format json", directory, path: path,
            prefix: "TZ=Africa/Cairo ")
        #expect(egypt.status == 0, "\(egypt.output)")
        #expect(egypt.output.contains("\"start\" : \"2026-04-24T01:00:00+03:00\""), "\(egypt.output)")
    }

    @Test func csvSummaryHasOneLinePerFigureAndHourRowsCarryTheDaysRecords() throws {
        let directory = try ScratchDirectory()
        let path = try ledger(in: directory)
        let summary = try report("--yesterday --by summary --format csv", directory, path: path)
        #expect(summary.status == 0, "\(summary.output)")
        let lines = summary.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "figure,value,detail")
        for figure in ["total_seconds,1200,", "notifications,3,", "shielded_seconds,1800,", "extra_time_seconds,900,"] {
            #expect(lines.contains { $0.hasPrefix(figure) }, "\(figure)")
        }
        #expect(lines.contains { $0.hasPrefix("limit_seconds,1200,\(Self.dayName(yesterday)) games") })
        let hours = try report("--yesterday --by hour --format csv", directory, path: path)
        let rows = hours.output.split(separator: "\n").map {
            $0.split(separator: ",", omittingEmptySubsequences: false)
        }
        #expect(
            rows.first?.joined(separator: ",")
                == "start,end,seconds,pickups,notifications,shielded_seconds,extra_time_seconds")
        let atTen = rows.first { $0.first?.contains("T10:00:00") == true }.map { $0.map(String.init) }
        // 10:00–11:00: 1200 s of use, 1 pickup, 3 notifications (the game's, a warning, a shield), shielded
        // 10:20–10:50, the grant at 10:50.
        #expect(atTen == [atTen?[0] ?? "", atTen?[1] ?? "", "1200", "1", "3", "1800", "900"])
    }

    @Test(arguments: ["2026-03-29", "2026-10-25", "2026-07-01"])
    func aDayHasARowPerLocalHourAlsoWhenTheClockChanges(day: String) throws {
        let directory = try ScratchDirectory()
        let path = try ledger(in: directory)
        let result = try report(
            "--from \(day) --to \(day) --by hour --format csv", directory, path: path, prefix: "TZ=Europe/Berlin ")
        #expect(result.status == 0, "\(result.output)")
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Berlin")!
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd"
        formatter.timeZone = calendar.timeZone
        let start = calendar.startOfDay(for: formatter.date(from: day)!)
        let end = calendar.date(byAdding: .day, value: 1, to: start)!
        let hours = Int(end.timeIntervalSince(start) / 3600)
        #expect(result.output.split(separator: "\n").count - 1 == hours)
    }

    @Test func theHTMLPageIsSelfContainedWithChartsTablesAndEscapedNames() throws {
        let directory = try ScratchDirectory()
        let path = try ledger(in: directory)
        let result = try report("--yesterday --format html", directory, path: path)
        #expect(result.status == 0, "\(result.output)")
        let page = result.output
        #expect(page.hasPrefix("<!DOCTYPE html>"))
        #expect(!page.contains("<script"))
        #expect(!page.contains("<link") && !page.contains("src=\"http") && !page.contains("url("))
        #expect(page.contains("prefers-color-scheme:dark"))
        #expect(page.contains("Game &lt;Deluxe&gt; &amp; &quot;Co&quot;\\e[31m"))
        #expect(!page.contains("<Deluxe>") && !page.contains("\u{1B}"))
        // Each chart is well-formed SVG with a title and a description for screen readers.
        var svgs: [Substring] = []
        var rest = page[...]
        while let open = rest.range(of: "<svg class=\"chart"),
            let close = rest.range(of: "</svg>", range: open.upperBound..<rest.endIndex)
        {
            svgs.append(rest[open.lowerBound..<close.upperBound])
            rest = rest[close.upperBound...]
        }
        #expect(svgs.count == 3)
        for svg in svgs {
            let parser = XMLParser(data: Data(svg.utf8))
            #expect(parser.parse(), "\(svg.prefix(200))")
            #expect(svg.contains("<title id=") && svg.contains("<desc id=") && svg.contains("aria-labelledby="))
        }
        // The hourly chart has a bar for the hour of use, coloured as its category.
        #expect(svgs[0].contains("class=\"series-\(ActivityCategory.allCases.firstIndex(of: .games)!)\""))
        // The data table has a row per hour of the day.
        #expect(page.components(separatedBy: "<tr><th scope=\"row\">").count - 1 >= 23 + 1)
    }

    static let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// The page as headless Chromium draws it, in light and dark mode: the charts' bars are in colour (many
    /// saturated pixels), and dark mode has a dark background. Needs chromium (and `convert` to read the PNG);
    /// under CI=true it runs (and fails) without.
    @Test(
        .enabled(if: chromium != nil || ProcessInfo.processInfo.environment["CI"] == "true"),
        arguments: [false, true])
    func headlessChromiumDrawsTheChartsInColourInLightAndDarkMode(overTwoDays: Bool) throws {
        let chromium = try #require(Self.chromium, "chromium is not installed (apt-get install chromium)")
        let directory = try ScratchDirectory()
        let path = try ledger(in: directory)
        // One day (a bar per hour), or two (a bar per day).
        let range = overTwoDays ? "--from \(Self.dayName(dayBefore)) --to \(Self.dayName(yesterday))" : "--yesterday"
        let result = try report("\(range) --format html > '\(directory.path)/page.html'", directory, path: path)
        #expect(result.status == 0, "\(result.output)")
        for dark in [false, true] {
            let png = directory.path + "/page-\(dark).png"
            let draw = try CommandResult(
                "'\(chromium)' --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1000,1200 "
                    + (dark
                        ? "--force-dark-mode --blink-settings=preferredColorScheme=0 "
                        : "--blink-settings=preferredColorScheme=1 ")
                    + "--screenshot='\(png)' 'file://\(directory.path)/page.html' && convert '\(png)' ppm:- > '\(png).ppm'",
                in: directory)
            #expect(draw.status == 0, "\(draw.output)")
            let image = try PortablePixmap(path: png + ".ppm")
            let saturated = image.pixels.count { max($0.0, $0.1, $0.2) - min($0.0, $0.1, $0.2) > 80 }
            #expect(saturated > 2_000, "\(saturated) coloured pixels")
            let corner = image.pixels[image.width * 2 + 2]
            #expect(
                dark ? max(corner.0, corner.1, corner.2) < 60 : min(corner.0, corner.1, corner.2) > 200, "\(corner)")
        }
    }

    @Test func anotherUsersReportIsRefusedToANormalUserWithWhatWhyAndHowToFix() throws {
        let directory = try ScratchDirectory()
        let path = try ledger(in: directory)
        // Run as a normal user: as nobody when the tests run as root, else as the caller asking for root's data.
        let asRoot = getuid() == 0
        let result = try report(
            "--user root", directory, path: path,
            prefix: asRoot ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "")
        #expect(result.status != 0)
        #expect(result.output.contains("only root may read another user's data"), "\(result.output)")
        #expect(result.output.contains("sudo screentime"))
    }

    /// Needs root; under CI=true it runs (and fails) without.
    @Test(.enabled(if: getuid() == 0 || ProcessInfo.processInfo.environment["CI"] == "true"))
    func rootReportsOnAnotherUsersData() throws {
        try #require(getuid() == 0, "reading another user's data needs root")
        let directory = try ScratchDirectory()
        let nobody = UserID(UInt32(getpwnam("nobody")!.pointee.pw_uid))
        let path = try ledger(in: directory, user: nobody)
        let mine = try report("--yesterday --format json", directory, path: path)
        let theirs = try report("--yesterday --format json --user nobody", directory, path: path)
        #expect(theirs.status == 0, "\(theirs.output)")
        let object = try JSONSerialization.jsonObject(with: Data(theirs.output.utf8)) as? [String: Any]
        #expect(object?["user"] as? Int == Int(nobody.rawValue))
        #expect(object?["totalSeconds"] as? Int == 1200)
        let own = try JSONSerialization.jsonObject(with: Data(mine.output.utf8)) as? [String: Any]
        #expect(own?["totalSeconds"] as? Int == 0)
        let export = try CommandResult(
            "'\(StatusOverBusTests.screentime)' export --format json --user nobody --database '\(path)' "
                + "--token-key '\(directory.path)/token.key'", in: directory)
        #expect(export.status == 0, "\(export.output)")
        let records = try JSONSerialization.jsonObject(with: Data(export.output.utf8)) as? [[String: Any]]
        #expect(records?.count == 2)
        #expect(records?.allSatisfy { $0["user"] as? Int == Int(nobody.rawValue) } == true)
        // The uninstalled game is named by the label the daemon recorded.
        #expect(records?.first?["app_name"] as? String == Self.gameName)
    }

    @Test func badInputSaysWhatWhereAndHowToFix() throws {
        let directory = try ScratchDirectory()
        let path = try ledger(in: directory)
        let day = try report("--from 2026-13-40", directory, path: path)
        #expect(day.status != 0)
        #expect(day.output.contains("--from \"2026-13-40\" is not a day: write YYYY-MM-DD"), "\(day.output)")
        let order = try report("--from 2026-11-20 --to 2026-11-10", directory, path: path)
        #expect(order.status != 0)
        #expect(order.output.contains("--from 2026-11-20 is after --to 2026-11-10"), "\(order.output)")
        let user = try report("--user no-such-user-here", directory, path: path)
        #expect(user.status == 2)
        #expect(user.output.contains("no user named \"no-such-user-here\""), "\(user.output)")
        let two = try report("--week --yesterday", directory, path: path)
        #expect(two.status != 0)
        #expect(two.output.contains("choose one range"), "\(two.output)")
    }
}

extension ISO8601DateFormatter {
    /// ISO 8601 with the local offset, as reports write times.
    static var local: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = .current
        return formatter
    }
}

/// A binary PPM (P6, 8 bits) image, as `convert FILE ppm:-` writes it.
struct PortablePixmap {
    var width: Int
    var height: Int
    var pixels: [(Int, Int, Int)]

    init(path: String) throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var fields: [String] = []
        var index = 0
        while fields.count < 4, index < bytes.count {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A { index += 1 }
            var field = ""
            while index < bytes.count, bytes[index] != 0x20, bytes[index] != 0x0A {
                field.append(Character(UnicodeScalar(bytes[index])))
                index += 1
            }
            fields.append(field)
        }
        index += 1
        guard fields.count == 4, fields[0] == "P6", let width = Int(fields[1]), let height = Int(fields[2]),
            bytes.count >= index + width * height * 3
        else { throw POSIXError(.EINVAL) }
        self.width = width
        self.height = height
        pixels = (0..<(width * height)).map { pixel in
            let offset = index + pixel * 3
            return (Int(bytes[offset]), Int(bytes[offset + 1]), Int(bytes[offset + 2]))
        }
    }
}
