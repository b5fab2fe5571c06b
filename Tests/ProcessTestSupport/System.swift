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

    /// Reaps `pid` if it has exited (or waits for it when `block`), returning its wait status and
    /// its peak resident memory in KiB, which `wait4` reports for that child alone: in kilobytes
    /// on Linux, in bytes on Darwin. `nil` while it runs.
    static func reap(_ pid: pid_t, block: Bool) -> (status: Int32, peakResidentKiB: Int)? {
        var status: Int32 = 0
        var usage = rusage()
        let result = wait4(pid, &status, block ? 0 : WNOHANG, &usage)
        guard result == pid else { return nil }
        #if canImport(Darwin)
            let peak = Int(usage.ru_maxrss) / 1024
        #else
            let peak = Int(usage.ru_maxrss)
        #endif
        return (status, peak)
    }
}
