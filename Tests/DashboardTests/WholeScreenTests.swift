import BusMonitor
import EventBus
import Foundation
import ScreenGrid
import Testing

@testable import Dashboard

/// The main layouts, every cell of their text at once, as ratatui's `TestBackend` asserts a
/// whole buffer: a change anywhere on the screen shows here, where a test of one row would miss
/// it. Times of day depend on the time zone, so they read `HH:MM:SS.mmm`.
@Suite("Whole screens")
struct WholeScreenTests {
    /// `grid`'s text with each time of day written `HH:MM:SS.mmm`.
    private func screen(_ grid: CellGrid) -> String {
        grid.text.replacing(/\d\d:\d\d:\d\d\.\d\d\d/, with: "HH:MM:SS.mmm")
    }

    @Test("one app at 80x24: tables, observers with a leak, the log, the key bar")
    func oneApp() {
        let (dashboard, _, now) = ObserversPaneTests.dashboard()
        #expect(
            screen(rendered(dashboard, width: 80, height: 24, now: now)) == """
                simulated app (seed 7)  bus app     up 00:00:05  0.0 ev/s  live  2 leak suspects
                ─ Event types ────────────────────────────────────────────┬─ Subscribers ───────
                TYPE                   COUNT RATE/s LAST 13s       UNHEARD│ LIVE DEAD  RECL  CHG
                UserLoggedInEvent         40    0.0                      0│    9    0     0
                * any type                40    0.0                      0│    1    0     0
                ─ Observers ─ 5 classes, 2 leak suspects ───────────────────────────────────────
                CLASS                     LIVE  DEAD  RECL  SUBS LEAKS LIVE, LAST 24s
                AppServices                  1     0     0     1     0                    █████
                InboxViewController          0     1    12     0     0
                LoginScreen                  2     0    40     6     0                    ▃▆██▆
                ProfileScreen                2     0     9     3     1                    █████
                ─ Log ─ following ──────────────────────────────────────────────────────────────
                HH:MM:SS.mmm • leak suspected: ProfileScreen #7 still alive 5.0 s after "screen…










                q Quit ? Help Space Pause / Filter o Suspects +/- Rate c Destroy L Leaks R Loop
                """)
    }

    @Test("a class's objects at 80x24, after o and Enter")
    func aClassesObjects() {
        let (dashboard, _, now) = ObserversPaneTests.dashboard()
        _ = dashboard.handle(.character("o"))
        _ = dashboard.handle(.enter)
        #expect(
            screen(rendered(dashboard, width: 80, height: 24, now: now)) == """
                simulated app (seed 7)  bus app     up 00:00:05  0.0 ev/s  live  2 leak suspects
                ─ Event types ────────────────────────────────────────────┬─ Subscribers ───────
                TYPE                   COUNT RATE/s LAST 13s       UNHEARD│ LIVE DEAD  RECL  CHG
                UserLoggedInEvent         40    0.0                      0│    9    0     0
                * any type                40    0.0                      0│    1    0     0
                ─ Observers › ProfileScreen ─ 1 leak suspect, 2 live; Enter/Esc back ───────────
                OBJECT        AGE  SUBS STATE         SUBSCRIBED TO
                #7         14.0 s     2 leak suspect  overdue 5.0 s after "screen closed"; User…
                #20         3.0 s     1 live          UserLoggedInEvent


                ─ Log ─ following ──────────────────────────────────────────────────────────────
                HH:MM:SS.mmm • leak suspected: ProfileScreen #7 still alive 5.0 s after "screen…










                q Quit ? Help Space Pause / Filter o Suspects +/- Rate c Destroy L Leaks R Loop
                """)
    }

    @Test("a fleet at 100x30: the Fleet pane above the tables, each log line's app")
    func aFleet() {
        let (dashboard, _, now) = FleetPaneTests.dashboard(observerData: true)
        #expect(
            screen(rendered(dashboard, width: 100, height: 30, now: now)) == """
                nats://127.0.0.1:4222  bus app  up 00:00:03  20 ev/s  3 apps, 1 quiet, 1 gone  live  2 leak suspects
                ─ Fleet ─ 3 apps, 1 quiet, 1 gone ──────────────────────────────────────────────────────────────────
                APP           HOST            PID STATE    EV/S   EVENTS  SUBS LEAKS BRIDGE
                checkout      web-1          4242 active     20       60     6     0 connected
                inventory     web-2          5151 quiet     0.0       10     3     1 reconnecting, dropped 12
                search        web-1          6161 gone      0.0        7     -     - -
                ─ Event types ────────────────────────────────────────────────────────────────┬─ Subscribers ───────
                TYPE                   COUNT RATE/s LAST 33s                           UNHEARD│ LIVE DEAD  RECL  CHG
                UserLoggedInEvent         40     20                                █▆        0│    9    0     0
                * any type                40     20                                █▆        0│    1    0     0
                ─ Observers ─ 5 classes, 2 leak suspects ───────────────────────────────────────────────────────────
                CLASS                       LIVE  DEAD RECLAIMED  SUBS LEAKS LIVE, LAST 38s
                AppServices                    1     0         0     1     0
                InboxViewController            0     1        12     0     0
                LoginScreen                    2     0        40     6     0
                ─ Log ─ following ──────────────────────────────────────────────────────────────────────────────────
                HH:MM:SS.mmm checkout  UserLoggedInEvent   {"userName":"c47"}                                      1
                HH:MM:SS.mmm checkout  UserLoggedInEvent   {"userName":"c48"}                                      1
                HH:MM:SS.mmm checkout  UserLoggedInEvent   {"userName":"c49"}                                      1
                HH:MM:SS.mmm checkout  UserLoggedInEvent   {"userName":"c50"}                                      1
                HH:MM:SS.mmm checkout  UserLoggedInEvent   {"userName":"c51"}                                      1
                HH:MM:SS.mmm checkout  UserLoggedInEvent   {"userName":"c52"}                                      1
                HH:MM:SS.mmm checkout  UserLoggedInEvent   {"userName":"c53"}                                      1
                HH:MM:SS.mmm checkout  UserLoggedInEvent   {"userName":"c54"}                                      1
                HH:MM:SS.mmm checkout  UserLoggedInEvent   {"userName":"c55"}                                      1
                HH:MM:SS.mmm checkout  UserLoggedInEvent   {"userName":"c56"}                                      1
                HH:MM:SS.mmm checkout  UserLoggedInEvent   {"userName":"c57"}                                      1
                HH:MM:SS.mmm checkout  UserLoggedInEvent   {"userName":"c58"}                                      1
                HH:MM:SS.mmm checkout  UserLoggedInEvent   {"userName":"c59"}                                      1
                q Quit ? Help Space Pause / Filter o Suspects Tab Pane G Follow Enter Details ↑↓ Scroll
                """)
    }
}
