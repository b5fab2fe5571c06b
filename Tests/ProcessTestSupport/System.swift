import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The C library's spellings that differ between Darwin and Linux, side by side, for running
/// child processes.
enum System {
    /// Spawn file actions ready for use. Glibc's `posix_spawn_file_actions_t` is a struct;
    /// Darwin's is a `void *` typedef, imported as an optional pointer with no initializer.
    #if canImport(Darwin)
        typealias SpawnActions = posix_spawn_file_actions_t?
        typealias SpawnAttributes = posix_spawnattr_t?
        static func makeSpawnActions() -> SpawnActions { nil }
        static func makeSpawnAttributes() -> SpawnAttributes { nil }
    #else
        typealias SpawnActions = posix_spawn_file_actions_t
        typealias SpawnAttributes = posix_spawnattr_t
        static func makeSpawnActions() -> SpawnActions { posix_spawn_file_actions_t() }
        static func makeSpawnAttributes() -> SpawnAttributes { posix_spawnattr_t() }
    #endif

    /// Reaps `pid` if it has exited (or waits for it when `block`), returning its wait status, the
    /// CPU time it used (user and system, from `wait4`) and, on Darwin, its peak resident memory
    /// in KiB (bytes there). `nil` while it runs.
    ///
    /// Linux's figure is not used: glibc spawns with `vfork`, and at `exec` the kernel carries the
    /// parent's high-water mark into the child's `ru_maxrss`, so a child of a large test runner
    /// would report the runner's memory. There ``peakResidentKiB(of:)`` is read while it runs.
    static func reap(_ pid: pid_t, block: Bool) -> (status: Int32, cpuSeconds: Double, peakResidentKiB: Int?)?
    {
        var status: Int32 = 0
        var usage = rusage()
        let result = wait4(pid, &status, block ? 0 : WNOHANG, &usage)
        guard result == pid else { return nil }
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        let cpu = seconds(usage.ru_utime) + seconds(usage.ru_stime)
        #if canImport(Darwin)
            return (status, cpu, Int(usage.ru_maxrss) / 1024)
        #else
            return (status, cpu, nil)
        #endif
    }

    /// The peak resident memory of the running process `pid` so far, in KiB: `VmHWM` in
    /// `/proc/PID/status` on Linux, which starts afresh at `exec`; `nil` on Darwin, which reports
    /// it when the child is reaped instead.
    static func peakResidentKiB(of pid: pid_t) -> Int? {
        #if os(Linux)
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else {
                return nil
            }
            let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
            return line?.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        #else
            return nil
        #endif
    }

    /// The file of the image this code was linked into: the test bundle's binary under
    /// `swift test` (`…PackageTests.xctest/Contents/MacOS/…`), or the executable itself.
    ///
    /// On macOS Swift Testing runs in `swiftpm-testing-helper`, which `dlopen`s the bundle, so it
    /// is neither `Bundle.main` nor in `Bundle.allBundles`; `dladdr` of this image's handle finds
    /// it whatever the runner. Glibc's module hides `dladdr` (it needs `_GNU_SOURCE`); on Linux
    /// the runner is the test executable itself, which `Bundle.main` finds through /proc.
    static func loadedImagePath() -> String? {
        #if canImport(Darwin)
            var info = Dl_info()
            guard dladdr(#dsohandle, &info) != 0, let name = info.dli_fname else { return nil }
            return String(cString: name)
        #else
            return Bundle.main.executableURL?.path
        #endif
    }
}
