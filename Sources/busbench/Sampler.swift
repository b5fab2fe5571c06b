#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Something to time: `run(n)` does `n` iterations of `unitsPerIteration` units each (a unit is
/// one handler call, or one publish, whatever the result is quoted per).
struct Workload {
    let unitsPerIteration: Int
    let run: (Int) -> Void
}

/// What one workload cost per unit: wall-clock time, and the CPU time of the whole process
/// (every thread), which tells contention apart from a lack of free cores.
struct UnitCost {
    let wallNanoseconds: Double
    let cpuNanoseconds: Double
}

/// How long and how often to time workloads.
struct Sampler {
    /// Timed rounds per workload; the median is reported.
    let rounds: Int
    /// How long one round should take, in nanoseconds; iteration counts are calibrated to it.
    let roundNanoseconds: Double
    /// A fixed iteration count instead of calibration, for a quick check that the code runs.
    let fixedIterations: Int?

    /// Many short rounds: on a shared machine a round that loses its core to another process
    /// for a few milliseconds is slow, and short rounds leave most of them untouched, so the
    /// median is the undisturbed cost. The whole run stays well under a minute.
    static let full = Sampler(rounds: 41, roundNanoseconds: 2e6, fixedIterations: nil)
    /// Tiny counts that exercise every code path in a second or two, even in a debug build.
    static let quick = Sampler(rounds: 2, roundNanoseconds: 0, fixedIterations: 20)

    /// The same sampler with rounds of a different length (unless it uses fixed counts), for
    /// workloads with a fixed cost per round, such as starting threads.
    func withRounds(_ rounds: Int, lasting nanoseconds: Double) -> Sampler {
        fixedIterations == nil
            ? Sampler(rounds: rounds, roundNanoseconds: nanoseconds, fixedIterations: nil) : self
    }

    /// Times `workloads` and returns each one's median nanoseconds per unit, in order.
    ///
    /// Each workload is first calibrated (which also warms it up), then the rounds alternate
    /// between the workloads, so a slow spell of the machine hits all of them alike instead of
    /// skewing the ratios between them.
    func medianNanosecondsPerUnit(_ workloads: [Workload]) -> [Double] {
        medianCostPerUnit(workloads).map(\.wallNanoseconds)
    }

    /// Like ``medianNanosecondsPerUnit(_:)-([Workload])``, with the process's CPU time as well;
    /// each median is taken on its own.
    func medianCostPerUnit(_ workloads: [Workload]) -> [UnitCost] {
        let iterations = workloads.map(calibratedIterations)
        var wallSamples = Array(repeating: [Double](), count: workloads.count)
        var cpuSamples = Array(repeating: [Double](), count: workloads.count)
        for _ in 0..<rounds {
            for (index, workload) in workloads.enumerated() {
                let units = Double(iterations[index] * workload.unitsPerIteration)
                let cpuStart = Self.processCPUNanoseconds()
                let nanoseconds = Self.time { workload.run(iterations[index]) }
                let cpu = Self.processCPUNanoseconds() - cpuStart
                wallSamples[index].append(nanoseconds / units)
                cpuSamples[index].append(cpu / units)
            }
        }
        return zip(wallSamples, cpuSamples).map { wall, cpu in
            UnitCost(wallNanoseconds: Self.median(wall), cpuNanoseconds: Self.median(cpu))
        }
    }

    /// Times one workload; see ``medianNanosecondsPerUnit(_:)-([Workload])``.
    func medianNanosecondsPerUnit(_ workload: Workload) -> Double {
        medianNanosecondsPerUnit([workload])[0]
    }

    /// Doubles the iteration count until a run takes a few milliseconds, then scales it to
    /// ``roundNanoseconds``.
    ///
    /// Each count is timed twice and the faster run counts, so that one slow start (a thread
    /// that waited for a core, a page fault) does not pass for the cost of the work itself.
    private func calibratedIterations(_ workload: Workload) -> Int {
        if let fixedIterations {
            workload.run(fixedIterations)
            return fixedIterations
        }
        var iterations = 256
        while true {
            let nanoseconds = min(
                Self.time { workload.run(iterations) }, Self.time { workload.run(iterations) })
            if nanoseconds >= 3e6 || iterations >= 1 << 30 {
                let scaled = Double(iterations) * roundNanoseconds / max(nanoseconds, 1)
                return max(1, Int(scaled))
            }
            iterations *= 2
        }
    }

    /// Nanoseconds `body` took on the monotonic clock.
    static func time(_ body: () -> Void) -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        body()
        let elapsed = start.duration(to: clock.now)
        let (seconds, attoseconds) = elapsed.components
        return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
    }

    /// CPU time used by every thread of the process so far.
    static func processCPUNanoseconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
        return Double(now.tv_sec) * 1e9 + Double(now.tv_nsec)
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
