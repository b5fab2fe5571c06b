import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What busmon reads of its own process, with Darwin's and Linux's ways side by side.
enum System {
    /// This program's peak resident memory in KiB.
    ///
    /// On Linux, `VmHWM` from /proc/self/status, which starts afresh at exec: getrusage's
    /// `ru_maxrss` would also count whatever ran in this process before exec, such as
    /// `swift run`. Darwin has no /proc, and its `ru_maxrss` is in bytes, not kilobytes.
    static func peakResidentKiB() -> Int? {
        var usage = rusage()
        #if canImport(Darwin)
            guard getrusage(RUSAGE_SELF, &usage) == 0 else { return nil }
            return Int(usage.ru_maxrss) / 1024
        #else
            if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) {
                let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
                if let kib = line?.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) { return kib }
            }
            guard getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage) == 0 else { return nil }
            return Int(usage.ru_maxrss)
        #endif
    }
}
