internal import BusMonitor
internal import BusWire
internal import Dashboard
internal import Foundation
internal import ScreenGrid
internal import TerminalUI

#if canImport(Darwin)
    internal import Darwin
#elseif canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// Why the frame loop stopped.
enum LoopEnd: Equatable {
    /// The screen asked to quit (a key such as `q`).
    case quit
    /// `--duration` ran out.
    case durationElapsed
    /// A termination signal arrived.
    case signal(Int32)
}

/// What a run of the frame loop did, for the summary line.
struct LoopReport {
    /// Why it stopped.
    var end: LoopEnd
    /// Frames drawn.
    var frames: Int
    /// Seconds it ran.
    var seconds: Double
}

/// Draws frames at a steady rate and hands keys to the screen in between, on the calling
/// thread, which must be the only one using the terminal.
struct FrameLoop {
    /// Frames per second; enough for smooth meters, cheap enough for a shared machine.
    static let framesPerSecond = 25.0
    /// Looks at the source this often once it has brought nothing new for
    /// ``secondsBeforeLookingLess``: a quiet app costs a few wake-ups a second, not 25, and the
    /// first news after a quiet spell shows within a fifth of a second. Keys are read at once
    /// either way.
    static let quietLooksPerSecond = 5.0
    static let secondsBeforeLookingLess = 1.0

    let terminal: Terminal
    let signals: SignalWatcher
    let screen: any Screen
    /// Seconds after which the loop ends by itself, or `nil`.
    let duration: Double?

    func run() -> LoopReport {
        let interval = 1 / Self.framesPerSecond
        let start = MonotonicClock.now()
        let deadline = duration.map { start + $0 }
        var nextFrame = start
        var lastNews = start
        var lastDrawn = -Double.infinity
        var grid = CellGrid(width: 0, height: 0)
        // The terminal keeps the grid it drew last to find what changed; the next frame is drawn
        // into the one before, which nothing else holds, so the screen clears it in place
        // rather than a copy.
        var previousGrid = grid
        var frames = 0
        var endedEarlyWithoutKey = true

        func report(_ end: LoopEnd) -> LoopReport {
            LoopReport(end: end, frames: frames, seconds: MonotonicClock.now() - start)
        }

        while true {
            if let signal = signals.pendingSignal() {
                _ = screen.handle(.interrupt)  // let the screen finish up; the signal ends the run regardless
                return report(.signal(signal))
            }
            // Asked only when the wait for a key ended early with none: a terminal that hung up
            // has its reads end at once, and the question is a system call, not one per frame.
            if endedEarlyWithoutKey, terminal.hasHungUp {
                // The terminal went away and no SIGHUP came (busmon is not its session): end as
                // if one had, rather than spin on reads that fail at once.
                _ = screen.handle(.interrupt)
                return report(.signal(SIGHUP))
            }
            var now = MonotonicClock.now()
            if let deadline, now >= deadline { return report(.durationElapsed) }

            if now >= nextFrame {
                let wallClock = WallClock.now()
                screen.update(now: wallClock)
                let (width, height) = terminal.size
                let resized = grid.width != width || grid.height != height
                if resized || screen.hasChangesToShow { lastNews = now }
                // Drawn only when it would differ from the last frame: a quiet source costs a
                // drain per tick, not a whole frame.
                if resized || screen.needsFrame(at: wallClock) {
                    if resized {
                        grid = CellGrid(width: width, height: height)
                        previousGrid = CellGrid(width: width, height: height)
                    }
                    swap(&grid, &previousGrid)
                    screen.render(into: &grid, now: wallClock)
                    terminal.draw(grid)
                    frames += 1
                    lastDrawn = now
                }
                // Keep a steady cadence, but after a stall start afresh instead of catching up.
                let quiet = now - lastNews > Self.secondsBeforeLookingLess
                let step = quiet ? 1 / Self.quietLooksPerSecond : interval
                nextFrame += step
                now = MonotonicClock.now()
                if nextFrame < now { nextFrame = now + step }
            }

            let waitUntil = min(nextFrame, deadline ?? nextFrame)
            let waitMilliseconds = Int(((waitUntil - now) * 1000).rounded(.up))
            let event = terminal.nextEvent(timeoutMilliseconds: max(0, waitMilliseconds))
            // A millisecond's grace: the wait's end may come a hair before its deadline.
            endedEarlyWithoutKey = event == nil && MonotonicClock.now() < waitUntil - 0.001
            switch event {
            case .key(let key):
                if !screen.handle(key) { return report(.quit) }
                // Answered in the next frame, at once even while the loop looks less often, but
                // no sooner than a frame's interval after the last: a held key or a paste does
                // not draw more than 25 frames a second.
                nextFrame = min(nextFrame, max(MonotonicClock.now(), lastDrawn + interval))
            case .resize:
                nextFrame = MonotonicClock.now()  // redraw at the new size right away
            case nil:
                break
            }
        }
    }
}
