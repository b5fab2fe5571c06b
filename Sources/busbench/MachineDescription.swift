import Foundation

/// What the figures were measured on, printed above them.
struct MachineDescription {
    let cpuModel: String
    let onlineCores: Int
    let loadAverage: String
    let date: String

    static func current() -> MachineDescription {
        let loadAverage = System.loadAverage().map { String(format: "%.2f %.2f %.2f", $0.0, $0.1, $0.2) }
        return MachineDescription(
            cpuModel: System.processorModel() ?? "unknown",
            onlineCores: ProcessInfo.processInfo.activeProcessorCount,
            loadAverage: loadAverage ?? "unknown", date: ISO8601DateFormatter().string(from: Date()))
    }
}
