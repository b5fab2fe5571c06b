import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What busbench reads of the machine and the process, with Darwin's and Linux's ways side by
/// side: Linux has `/proc`, Darwin has Mach's `task_info` and `sysctl`; `ru_maxrss` is in
/// kilobytes on Linux and in bytes on Darwin.
enum System {
    /// The processor's model name, such as `AMD EPYC 7B13`, when the system says.
    static func processorModel() -> String? {
        #if canImport(Darwin)
            var size = 0
            guard sysctlbyname("machdep.cpu.brand_string", nil, &size, nil, 0) == 0, size > 0 else {
                return nil
            }
            var bytes = [CChar](repeating: 0, count: size)
            guard sysctlbyname("machdep.cpu.brand_string", &bytes, &size, nil, 0) == 0 else { return nil }
            return String(decoding: bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #else
            let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
            return cpuinfo.split(separator: "\n")
                .first { $0.hasPrefix("model name") }
                .flatMap { $0.split(separator: ":", maxSplits: 1).last }
                .map { $0.trimmingCharacters(in: .whitespaces) }
        #endif
    }

    /// The folder busbench runs from, where `swift build` puts the package's other programs.
    static var programFolder: URL {
        (Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0]))
            .resolvingSymlinksInPath()
            .deletingLastPathComponent()
    }

    /// The paths of `names` in ``programFolder``, or `nil` when any of them is not built.
    static func builtPrograms(_ names: String...) -> [String]? {
        let paths = names.map { programFolder.appendingPathComponent($0).path }
        return paths.allSatisfy(FileManager.default.isExecutableFile(atPath:)) ? paths : nil
    }

    /// The load averages over 1, 5 and 15 minutes.
    static func loadAverage() -> (Double, Double, Double)? {
        var loads = [0.0, 0.0, 0.0]
        guard getloadavg(&loads, 3) == 3 else { return nil }
        return (loads[0], loads[1], loads[2])
    }
}

#if canImport(Darwin)
    /// This task's Mach port, taken once. `mach_task_self_` is a mutable C global, which Swift 6
    /// rejects in SDKs before macOS 15.4 (they lack its concurrency annotation); the trap returns
    /// the same port without touching it, and a constant is safe to read from any thread.
    private let currentTask: mach_port_t = task_self_trap()
#endif

/// The process's memory as the kernel reports it.
enum ProcessMemory {
    /// Resident set size now.
    static func residentBytes() -> Int? {
        #if canImport(Darwin)
            var info = mach_task_basic_info()
            var count = mach_msg_type_number_t(
                MemoryLayout<mach_task_basic_info>.size / MemoryLayout<natural_t>.size)
            let result = withUnsafeMutablePointer(to: &info) {
                $0.withMemoryRebound(to: integer_t.self, capacity: Int(count)) {
                    task_info(currentTask, task_flavor_t(MACH_TASK_BASIC_INFO), $0, &count)
                }
            }
            guard result == KERN_SUCCESS else { return nil }
            return Int(info.resident_size)
        #else
            guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else {
                return nil
            }
            let fields = statm.split(separator: " ")
            guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
            return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
        #endif
    }

    /// The most the resident set has been, from `getrusage`.
    static func maxResidentBytes() -> Int? {
        var usage = rusage()
        #if canImport(Darwin)
            guard getrusage(RUSAGE_SELF, &usage) == 0 else { return nil }
            return Int(usage.ru_maxrss)  // bytes on Darwin
        #else
            guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return nil }
            return Int(usage.ru_maxrss) * 1024  // kilobytes on Linux
        #endif
    }
}
