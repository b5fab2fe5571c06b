import Foundation

/// A trace file in the Chrome Trace Event format, read back and checked against the format's
/// rules as Perfetto's importer applies them:
/// - the file is a JSON array of event objects (the "JSON Array Format"; its closing `]` may be
///   missing), each with a one-letter `ph` and a `pid`;
/// - `X` (complete) events have `ts`, `dur` ≥ 0 and `tid`; on one thread they nest, never
///   overlapping in part; `i` instants have a scope `s` of `t`, `p` or `g` (a thread's instant is
///   a slice of no duration on its track);
/// - `b`/`e` async events pair by `cat`, `name` and `id`;
/// - `C` counters carry numbers in `args`; `M` metadata names processes and threads;
/// - a flow's `s` binds to the top of its thread's slice stack at its time (a finished slice
///   stays on the stack until a later one begins), and its `f` (without `"bp":"e"`) to the next
///   slice that begins on its thread after its time; one of each per `id`;
/// - no `ts` is negative (Perfetto drops those).
package struct TraceFile {
    /// One slice on a thread's track, in nanoseconds.
    package struct Slice: Hashable {
        package var start: Int
        package var end: Int
        package var name: String
        package var category: String
    }

    /// A flow arrow, from the slice its start binds to, to the slice its end binds to.
    package struct Arrow: Hashable {
        package var from: Slice
        package var to: Slice
    }

    /// Every event, in file order.
    package let events: [[String: Any]]
    /// Slices (complete events and thread instants) by process and thread.
    package private(set) var slices: [Int: [Int: [Slice]]] = [:]
    /// What breaks the format's rules, one line each; empty for a good trace.
    package private(set) var problems: [String] = []
    /// The flows that bind at both ends.
    package private(set) var arrows: [Arrow] = []

    /// Reads the file at `path`; a trace cut short of its closing `]` is read as the format
    /// allows.
    package init(path: String) throws {
        try self.init(data: Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Reads a trace from `data`.
    package init(data: Data) throws {
        var text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("["), !text.hasSuffix("]") { text += "]" }
        guard let array = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]] else {
            throw TraceFileError(description: "not a JSON array of objects")
        }
        events = array
        check()
    }

    /// The events with `ph` equal to `phase`.
    package func events(_ phase: String) -> [[String: Any]] {
        events.filter { $0["ph"] as? String == phase }
    }

    /// The names of the processes, from their `process_name` metadata.
    package var processNames: [Int: String] {
        var names: [Int: String] = [:]
        for event in events("M") where event["name"] as? String == "process_name" {
            if let pid = event["pid"] as? Int, let args = event["args"] as? [String: Any] {
                names[pid] = args["name"] as? String
            }
        }
        return names
    }

    /// The handler slices (`"cat":"handler"`) of process `pid`, or of every process.
    package func handlerSlices(of pid: Int? = nil) -> [[String: Any]] {
        events("X").filter {
            $0["cat"] as? String == "handler" && (pid == nil || $0["pid"] as? Int == pid)
        }
    }

    /// The counter track names.
    package var counterNames: Set<String> {
        Set(events("C").compactMap { $0["name"] as? String })
    }

    private static func nanoseconds(_ value: Any?) -> Int? {
        guard let number = value as? NSNumber else { return nil }
        return Int((number.doubleValue * 1000).rounded())
    }

    private mutating func check() {
        var flows: [String: (start: [String: Any]?, end: [String: Any]?)] = [:]
        var async: [String: Int] = [:]
        for (index, event) in events.enumerated() {
            guard let phase = event["ph"] as? String, phase.count == 1 else {
                problems.append("event \(index) has no one-letter ph")
                continue
            }
            guard let pid = event["pid"] as? Int else {
                problems.append("event \(index) (\(phase)) has no pid")
                continue
            }
            let name = event["name"] as? String ?? ""
            let category = event["cat"] as? String ?? ""
            let time = Self.nanoseconds(event["ts"])
            if phase != "M" && time == nil { problems.append("event \(index) (\(phase) \(name)) has no ts") }
            if let time, time < 0 {
                problems.append("event \(index) (\(phase) \(name)) has a negative ts, which Perfetto drops")
            }
            switch phase {
            case "X":
                guard let tid = event["tid"] as? Int, let start = time,
                    let duration = Self.nanoseconds(event["dur"]), duration >= 0
                else {
                    problems.append("complete event \(index) (\(name)) lacks tid or a dur ≥ 0")
                    continue
                }
                slices[pid, default: [:]][tid, default: []].append(
                    Slice(start: start, end: start + duration, name: name, category: category))
            case "i", "I":
                let scope = event["s"] as? String ?? "t"
                guard ["t", "p", "g"].contains(scope) else {
                    problems.append("instant \(index) (\(name)) has scope \(scope)")
                    continue
                }
                if scope == "t", let start = time {
                    guard let tid = event["tid"] as? Int else {
                        problems.append("thread instant \(index) (\(name)) has no tid")
                        continue
                    }
                    slices[pid, default: [:]][tid, default: []].append(
                        Slice(start: start, end: start, name: name, category: category))
                }
            case "b", "e":
                guard let id = event["id"] else {
                    problems.append("async event \(index) (\(name)) has no id")
                    continue
                }
                async["\(pid)/\(category)/\(name)/\(id)", default: 0] += phase == "b" ? 1 : -1
            case "s", "f":
                guard let id = event["id"], event["tid"] is Int else {
                    problems.append("flow event \(index) has no id or tid")
                    continue
                }
                var flow = flows["\(category)/\(id)"] ?? (nil, nil)
                if phase == "s" {
                    if flow.start != nil { problems.append("flow \(id) starts twice") }
                    flow.start = event
                } else {
                    if flow.end != nil { problems.append("flow \(id) ends twice") }
                    if event["bp"] as? String == "e" {
                        problems.append("flow \(id) binds its end to the enclosing slice")
                    }
                    flow.end = event
                }
                flows["\(category)/\(id)"] = flow
            case "C":
                guard let args = event["args"] as? [String: Any], !args.isEmpty,
                    args.values.allSatisfy({ $0 is NSNumber })
                else {
                    problems.append("counter \(index) (\(name)) has no numbers in args")
                    continue
                }
            case "M":
                guard
                    ["process_name", "thread_name", "process_sort_index", "thread_sort_index"].contains(name),
                    event["args"] is [String: Any]
                else {
                    problems.append("metadata \(index) is \(name)")
                    continue
                }
            default:
                problems.append("event \(index) has phase \(phase), which this trace does not use")
            }
        }
        for (key, balance) in async where balance != 0 {
            problems.append("async slice \(key) is not one b and one e")
        }
        checkNesting()
        // Flow starts bound per track in one sweep, as Perfetto's slice stack moves.
        var startsByTrack: [Track: [(time: Int, id: String)]] = [:]
        for (id, flow) in flows {
            guard let start = flow.start, flow.end != nil else {
                problems.append("flow \(id) lacks its start or its end")
                continue
            }
            if let track = Self.track(of: start), let time = Self.nanoseconds(start["ts"]) {
                startsByTrack[track, default: []].append((time, id))
            }
        }
        var bound: [String: Slice] = [:]
        for (track, starts) in startsByTrack {
            let list = slices[track.pid]?[track.tid] ?? []
            var stack: [Slice] = []
            var next = 0
            for start in starts.sorted(by: { $0.time < $1.time }) {
                var ambiguous = false
                while next < list.count, list[next].start <= start.time {
                    if list[next].start == start.time { ambiguous = true }
                    while let top = stack.last, top.end <= list[next].start { stack.removeLast() }
                    stack.append(list[next])
                    next += 1
                }
                if !ambiguous, let top = stack.last { bound[start.id] = top }
            }
        }
        for (id, flow) in flows {
            guard let end = flow.end, flow.start != nil else { continue }
            guard let from = bound[id], let to = self.next(end) else {
                problems.append("flow \(id) binds to no slice at one end")
                continue
            }
            arrows.append(Arrow(from: from, to: to))
        }
    }

    private struct Track: Hashable {
        var pid: Int
        var tid: Int
    }

    private static func track(of event: [String: Any]) -> Track? {
        guard let pid = event["pid"] as? Int, let tid = event["tid"] as? Int else { return nil }
        return Track(pid: pid, tid: tid)
    }

    private mutating func checkNesting() {
        for (pid, threads) in slices {
            for (tid, list) in threads {
                let sorted = list.sorted { ($0.start, -$0.end) < ($1.start, -$1.end) }
                var open: [Slice] = []
                for slice in sorted {
                    while let last = open.last,
                        last.end < slice.start || (last.end == slice.start && last.start < last.end)
                    {
                        open.removeLast()
                    }
                    if let last = open.last, slice.end > last.end {
                        problems.append("on \(pid)/\(tid), \(slice.name) overlaps \(last.name) in part")
                    }
                    open.append(slice)
                }
                slices[pid]![tid] = sorted
            }
        }
    }

    /// The slice Perfetto binds a flow's end to (without `"bp":"e"`): the first that begins on
    /// its thread after the flow's time; `nil` when one begins at that very time.
    private func next(_ event: [String: Any]) -> Slice? {
        guard let pid = event["pid"] as? Int, let tid = event["tid"] as? Int,
            let time = Self.nanoseconds(event["ts"]), let list = slices[pid]?[tid]
        else { return nil }
        // The list is sorted by start: the first at or after `time`, by bisection.
        var (low, high) = (0, list.count)
        while low < high {
            let middle = (low + high) / 2
            if list[middle].start < time { low = middle + 1 } else { high = middle }
        }
        guard low < list.count, list[low].start > time else { return nil }
        return list[low]
    }
}

/// Why a trace file could not be read.
package struct TraceFileError: Error, CustomStringConvertible {
    package let description: String
}
