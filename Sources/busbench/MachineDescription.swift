import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What the figures were measured on, printed above them.
struct MachineDescription {
    let cpuModel: String
    let onlineCores: Int
    let loadAverage: String
    let date: String

    static func current() -> MachineDescription {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model =
            cpuinfo.split(separator: "\n")
            .first { $0.hasPrefix("model name") }
            .flatMap { $0.split(separator: ":", maxSplits: 1).last }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        let loadAverage =
            (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))
            .map { $0.split(separator: " ").prefix(3).joined(separator: " ") }
        return MachineDescription(
            cpuModel: model ?? "unknown", onlineCores: ProcessInfo.processInfo.activeProcessorCount,
            loadAverage: loadAverage ?? "unknown", date: ISO8601DateFormatter().string(from: Date()))
    }
}

/// The process's memory as the kernel reports it.
enum ProcessMemory {
    /// Resident set size now, from `/proc/self/statm`.
    static func residentBytes() -> Int? {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = statm.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// The most the resident set has been, from `getrusage` (kilobytes on Linux).
    static func maxResidentBytes() -> Int? {
        var usage = rusage()
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return nil }
        return Int(usage.ru_maxrss) * 1024
    }
}
