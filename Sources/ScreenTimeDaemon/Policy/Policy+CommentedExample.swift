extension Policy {
    /// A complete, commented policy file: what `screentime policy example` prints and a starting point for
    /// `$XDG_CONFIG_HOME/screentime/policy.toml`. It parses (a test keeps it so).
    public static let commentedExample = #"""
        # Screen Time policy: ~/.config/screentime/policy.toml (TOML; every key is described in docs/policy.md).
        # Apps are named by their desktop-entry id (org.gnome.Calculator) or, for a program without a desktop
        # entry, by its executable's file name (supertuxkart).

        # Apps that are never limited and stay usable during downtime.
        always_allowed = ["org.gnome.Calculator", "org.gnome.Settings"]

        # A daily limit. Add as many [[limit]] tables as you like; each needs its own name.
        [[limit]]
        name = "games"
        apps = ["org.example.Game", "supertuxkart"]
        # Categories: games, social, entertainment, creativity, education, productivity-finance,
        # information-reading, health-fitness, utilities, shopping-food, travel, web-browsers,
        # developer-tools, other.
        categories = ["games"]
        daily = "1h30m"        # also "45s", "20m", "2h"
        warning = "5m"         # a notification this long before the limit
        shield = "freeze"      # or "terminate" (quit the app; killed after `grace`, default "10s")
        # extension = "/usr/local/bin/my-monitor"   # run for each callback (a DeviceActivityMonitor program)

        # A limit may differ by weekday: any of weekdays, weekend, mon … sun, a day's own key winning.
        # A day left out has no limit.
        [[limit]]
        name = "video"
        categories = ["entertainment"]
        daily = { weekdays = "1h", weekend = "2h", fri = "1h30m" }
        shield = "terminate"
        grace = "30s"

        # A per-schedule limit: counts only between `start` and `end` each day
        # (HH:MM or HH:MM:SS), and resets at `start`.
        [[limit]]
        name = "school-social"
        categories = ["social"]
        daily = "20m"
        start = "08:00"
        end = "15:00"

        # A daily span in which only allowed apps may be used. An end before the start means the next morning.
        # `start` and `end` may differ by weekday too, and `days = ["mon", "weekend"]` keeps it to some days.
        [[downtime]]
        name = "bedtime"
        start = { weekdays = "21:30", weekend = "22:30" }
        end = "07:00"
        allow = ["org.gnome.Calculator"]

        # How shields look and how much more time they may offer.
        [shield]
        message = "Time's up for today.\nAsk for more time if you need it."
        extra = "15m"          # what "more time" gives
        extra_times = 2        # how many times a day
        """#
}
