internal import BusWire
internal import EventBus

/// Who publishes what to whom, gathered from what a source delivers: call sites publish event
/// types, observer classes handle them, and an event type's handlers publish other types.
/// ``dot(title:final:)`` writes it for Graphviz.
///
/// ```swift
/// var graph = FlowGraph()
/// graph.take(source.drain())
/// try graph.dot(title: "simapp").write(toFile: "flow.dot", atomically: true, encoding: .utf8)
/// // dot -Tsvg flow.dot > flow.svg
/// ```
package struct FlowGraph: Sendable {
    /// One arrow of the graph, between two named nodes.
    package struct Edge: Hashable, Sendable {
        /// Where it starts: a call site, or an event type.
        package let from: String
        /// Where it ends: an event type, or an observer class.
        package let to: String

        /// An arrow from `from` to `to`, each name cut to ``FlowGraph/maximumNameLength``.
        package init(from: String, to: String) {
            self.from = FlowGraph.kept(from)
            self.to = FlowGraph.kept(to)
        }
    }

    /// Events published from each call site, per event type, up to each app's newest snapshot
    /// (see ``eventsAfterSnapshots``).
    package private(set) var publishes: [Edge: Int] = [:]
    /// Handler calls of each observer class (`token` for subscriptions without one), per event
    /// type, from the newest snapshot, counted from the app's first snapshot, as its events are
    /// counted from when the monitor began to watch; 0 for a subscription seen only as it was
    /// made.
    package private(set) var handles: [Edge: Int] = [:]
    /// Events of each type published by the handlers of another type, up to each app's newest
    /// snapshot.
    package private(set) var triggers: [Edge: Int] = [:]
    /// Failed and slow handler calls, per event type and observer class.
    package private(set) var troubles: [Edge: Int] = [:]

    /// Arrows of one kind a graph keeps: names come from the apps watched, and a stranger can
    /// make up any number of them.
    package static let maximumEdges = 10_000
    /// Apps whose snapshots a graph sums, for the same reason.
    package static let maximumApps = 1_000
    /// Characters of a name a graph keeps (a call site, an event type, an observer class): the
    /// rest of a longer one is left out and an ellipsis says so. Real names are far shorter; a
    /// stranger's are not, and each arrow and remembered event holds two.
    package static let maximumNameLength = 256
    /// Records that would have made an arrow or an app past those limits, left out so far (a
    /// record per event, lifecycle change or snapshot row): said so in the graph.
    package private(set) var leftOut = 0
    /// Events the source says were lost on their way to busmon, so far: not counted, and said
    /// so in the graph.
    package private(set) var lostEvents = 0
    /// Processes that took turns behind a source that watches one app, after the first: their
    /// counts are added up, and the graph's title, which names the newest, says so.
    package private(set) var processesBefore = 0

    /// Each app's newest handler calls and failed or slow calls per edge, from its snapshots,
    /// since its first snapshot.
    private var appCalls: [EventOrigin?: [Edge: Int]] = [:]
    private var appTrouble: [EventOrigin?: [Edge: Int]] = [:]
    /// Each app's handler calls and failed or slow calls in the first snapshot the graph took,
    /// which the later ones are counted from.
    private var baseCalls: [EventOrigin?: [Edge: Int]] = [:]
    private var baseTrouble: [EventOrigin?: [Edge: Int]] = [:]
    /// The calls and troubles of the processes watched before the current one behind the same
    /// socket, summed.
    private var earlierCalls: [Edge: Int] = [:]
    private var earlierTrouble: [Edge: Int] = [:]
    /// The hellos of a source that watches one app.
    private var hellos = HelloSequence()

    /// The arrows of an app's events since its newest snapshot.
    private struct EventArrows: Sendable {
        var publishes: [Edge: Int] = [:]
        var triggers: [Edge: Int] = [:]
        var events = 0
    }

    /// Events of each app since its newest snapshot, counted into ``publishes`` and
    /// ``triggers`` when its next snapshot comes: the calls on the arrows to observer classes
    /// come from snapshots, and a graph written between two of them would otherwise show a
    /// type's events up to now beside its handlers' calls up to half a second before. An app
    /// that sent no snapshot yet has its events counted at once.
    private var sinceSnapshot: [EventOrigin?: EventArrows] = [:]
    /// Arrows in ``sinceSnapshot``, all apps' together.
    private var heldArrows = 0

    /// Events that came after their app's newest snapshot, not counted in the graph yet; the
    /// graph's title says how many.
    package var eventsAfterSnapshots: Int {
        sinceSnapshot.values.reduce(0) { $0.clampedAdding($1.events) }
    }

    /// The types of recent events, by app and number, to name the type of an event's cause;
    /// two generations, so that memory stays bounded (``recentLimit`` entries each).
    private var recent: [RecentEvent: String] = [:]
    private var older: [RecentEvent: String] = [:]
    /// Events remembered per generation.
    static let recentLimit = 50_000

    private struct RecentEvent: Hashable, Sendable {
        let origin: EventOrigin?
        let eventID: UInt64
    }

    /// An empty graph.
    package init() {}

    /// `name`, or its first ``maximumNameLength`` characters and an ellipsis.
    static func kept(_ name: String) -> String {
        guard name.utf8.count > maximumNameLength, name.count > maximumNameLength else { return name }
        return String(name.prefix(maximumNameLength - 1)) + "…"
    }

    /// Whether nothing was gathered yet.
    package var isEmpty: Bool { publishes.isEmpty && handles.isEmpty && triggers.isEmpty }

    /// Takes in one batch.
    package mutating func take(_ batch: SourceBatch) {
        lostEvents = max(lostEvents, batch.droppedEvents)
        defer {
            // An app of a fleet that is gone sends no more snapshots: its last events count.
            for member in batch.fleet ?? [] where member.presence == .gone {
                countEvents(since: member.origin)
            }
        }
        for record in batch.records {
            switch record {
            case .event(let event): take(event)
            case .lifecycle(let change): take(change.change)
            case .snapshot(let snapshot): take(snapshot.snapshot, of: snapshot.origin)
            case .hello(let hello): take(hello)
            // The app went away: no snapshot will follow its last events.
            case .detached: countEvents(since: nil)
            case .dropped, .refused, .call: break
            }
        }
    }

    /// A hello of a source that watches one app: a new process behind the same socket starts
    /// its counters and its event numbers over, so the calls of the one before are kept apart,
    /// and added to its own.
    private mutating func take(_ hello: FeedHello) {
        guard hellos.startsNewProcess(hello) else { return }
        if !isEmpty || !baseCalls.isEmpty { processesBefore.clampedAdd(1) }
        // The process before sends no more snapshots, and the new one counts from its first.
        countEvents(since: nil)
        baseCalls[nil] = nil
        baseTrouble[nil] = nil
        // Only the arrows the graph has: as many as ``maximumEdges``, however many processes.
        if let calls = appCalls.removeValue(forKey: nil) {
            for (edge, count) in calls where handles[edge] != nil {
                earlierCalls[edge, default: 0].clampedAdd(count)
            }
        }
        if let trouble = appTrouble.removeValue(forKey: nil) {
            for (edge, count) in trouble where handles[edge] != nil {
                earlierTrouble[edge, default: 0].clampedAdd(count)
            }
        }
        recent = [:]
        older = [:]
    }

    private mutating func take(_ event: FeedEvent) {
        let trace = event.trace
        let typeName = Self.kept(event.typeName)
        var arrows = EventArrows()
        if let site = trace.site {
            arrows.publishes[Edge(from: site.description, to: typeName)] = 1
        }
        if let cause = trace.causeID {
            let key = RecentEvent(origin: event.origin, eventID: cause)
            if let causeType = recent[key] ?? older[key] {
                arrows.triggers[Edge(from: causeType, to: typeName)] = 1
            }
        }
        // An app whose first snapshot was taken has a baseline of calls.
        if baseCalls[event.origin] != nil {
            hold(arrows, of: event.origin)
        } else {
            count(arrows)
        }
        if trace.eventID != 0 {
            remember(RecentEvent(origin: event.origin, eventID: trace.eventID), typeName)
        }
    }

    private mutating func take(_ change: SubscriberLifecycleEvent) {
        switch change.kind {
        case .subscribed, .duplicateSubscription:
            guard change.eventTypeName != SubscriberLifecycleEvent.wildcardTypeName else { return }
            let edge = Edge(from: change.eventTypeName, to: change.observerTypeName ?? "token")
            add(0, at: edge, in: \.handles)
        // A late delivery waited on its queue or actor; its handler is not what failed or was
        // slow, and the Handlers pane counts it apart (WAIT), so the graph does too.
        case .handlerFailed, .slowHandler:
            add(
                1, at: Edge(from: change.eventTypeName, to: change.observerTypeName ?? "token"),
                in: \.troubles)
        default:
            break
        }
    }

    /// Keeps an event's arrows until its app's next snapshot; an app past ``maximumApps``
    /// has its events counted at once.
    ///
    /// The arrows held, over all apps, are as many as ``maximumEdges`` at most, as the graph's
    /// own: one that would be a new arrow past that is left out, and counted as such.
    private mutating func hold(_ arrows: EventArrows, of origin: EventOrigin?) {
        guard sinceSnapshot[origin] != nil || sinceSnapshot.count < Self.maximumApps else {
            count(arrows)
            return
        }
        var held = sinceSnapshot.removeValue(forKey: origin) ?? EventArrows()
        held.events += 1
        add(arrows.publishes, toHeld: &held.publishes)
        add(arrows.triggers, toHeld: &held.triggers)
        sinceSnapshot[origin] = held
    }

    /// Adds `arrows` to `held`, one of an app's held maps, within the bound on held arrows.
    private mutating func add(_ arrows: [Edge: Int], toHeld held: inout [Edge: Int]) {
        for (edge, count) in arrows {
            if held[edge] == nil {
                guard heldArrows < Self.maximumEdges else {
                    leftOut += 1
                    continue
                }
                heldArrows += 1
            }
            held[edge, default: 0].clampedAdd(count)
        }
    }

    /// Counts the arrows of `arrows` into the graph.
    private mutating func count(_ arrows: EventArrows) {
        for (edge, count) in arrows.publishes { add(count, at: edge, in: \.publishes) }
        for (edge, count) in arrows.triggers { add(count, at: edge, in: \.triggers) }
    }

    /// Counts the events `origin` published since its newest snapshot.
    private mutating func countEvents(since origin: EventOrigin?) {
        guard let held = sinceSnapshot.removeValue(forKey: origin) else { return }
        heldArrows -= held.publishes.count + held.triggers.count
        count(held)
    }

    /// Takes one app's handler rows; in a fleet each edge counts the calls of every app.
    private mutating func take(_ snapshot: BusSnapshot, of origin: EventOrigin?) {
        // Its events up to this snapshot are counted with the calls it holds.
        countEvents(since: origin)
        var calls: [Edge: Int] = [:]
        var trouble: [Edge: Int] = [:]
        for row in snapshot.handlers where row.eventTypeName != SubscriberLifecycleEvent.wildcardTypeName {
            let edge = Edge(from: row.eventTypeName, to: row.observerTypeName ?? "token")
            calls[edge, default: 0].clampedAdd(row.calls)
            trouble[edge, default: 0].clampedAdd(row.failures.clampedAdding(row.slowCalls))
        }
        guard appCalls[origin] != nil || appCalls.count < Self.maximumApps else {
            leftOut += 1
            return
        }
        // Counted from the app's first snapshot on, as its events are: calls made before the
        // monitor watched had events it never saw.
        let firstCalls = baseCalls[origin] ?? calls
        let firstTrouble = baseTrouble[origin] ?? trouble
        baseCalls[origin] = firstCalls
        baseTrouble[origin] = firstTrouble
        for (edge, count) in firstCalls { calls[edge] = max(0, (calls[edge] ?? 0) - count) }
        for (edge, count) in firstTrouble { trouble[edge] = max(0, (trouble[edge] ?? 0) - count) }
        appCalls[origin] = calls
        appTrouble[origin] = trouble
        for edge in calls.keys {
            guard handles[edge] != nil || handles.count < Self.maximumEdges else {
                leftOut += 1
                continue
            }
            let calls = appCalls.values.clampedSum { $0[edge] ?? 0 }.clampedAdding(earlierCalls[edge] ?? 0)
            handles[edge] = max(handles[edge] ?? 0, calls)
            let sum = appTrouble.values.clampedSum { $0[edge] ?? 0 }.clampedAdding(earlierTrouble[edge] ?? 0)
            if sum > 0 { troubles[edge] = max(troubles[edge] ?? 0, sum) }
        }
    }

    /// Adds `count` to the arrow `edge` of `map` (held at `Int.max`), made when new unless `map`
    /// holds ``maximumEdges`` arrows already: then it is counted as left out.
    private mutating func add(_ count: Int, at edge: Edge, in map: WritableKeyPath<FlowGraph, [Edge: Int]>) {
        if let current = self[keyPath: map][edge] {
            self[keyPath: map][edge] = current.clampedAdding(count)
        } else if self[keyPath: map].count < Self.maximumEdges {
            self[keyPath: map][edge] = count
        } else {
            leftOut += 1
        }
    }

    private mutating func remember(_ key: RecentEvent, _ typeName: String) {
        if recent.count >= Self.recentLimit {
            older = recent
            recent = [:]
        }
        recent[key] = typeName
    }

    /// The graph in Graphviz's DOT language: call sites (notes) → event types (boxes) →
    /// observer classes (ellipses), and dashed red arrows from a type to the types its handlers
    /// publish; each arrow labelled with its count, and handlers that failed or were slow in red.
    package func dot(title: String, final: Bool = false) -> String {
        // Names came from apps: control characters are written as visible escapes, so that
        // `cat` of the file, or a label drawn by a terminal tool, cannot act on them.
        func quoted(_ text: String) -> String {
            let safe = UntrustedText.escaped(text)
            return "\"" + safe.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""
        }
        func id(_ kind: String, _ name: String) -> String { quoted(kind + ":" + name) }
        var notes: [String] = []
        if processesBefore > 0 {
            notes.append("the counts of \(processesBefore + 1) processes in turn, added up")
        }
        if leftOut > 0 { notes.append("\(leftOut) records past the graph's limits left out") }
        if lostEvents > 0 { notes.append("\(lostEvents) events lost on the way, not counted") }
        let newer = eventsAfterSnapshots
        // At the end no snapshot will come for them: not counted, rather than not yet.
        if newer > 0 {
            notes.append("\(newer) events after the newest snapshot not counted" + (final ? "" : " yet"))
        }
        let label = notes.isEmpty ? title : title + " (" + notes.joined(separator: "; ") + ")"
        var lines = [
            "digraph busmon {",
            "  label=\(quoted(label)); labelloc=t; rankdir=LR;",
            "  node [fontname=\"Helvetica\", fontsize=11]; edge [fontname=\"Helvetica\", fontsize=9];",
        ]
        let sites = Set(publishes.keys.map(\.from)).sorted()
        let types = Set(
            publishes.keys.map(\.to) + handles.keys.map(\.from) + triggers.keys.flatMap { [$0.from, $0.to] }
        )
        .sorted()
        let classes = Set(handles.keys.map(\.to)).sorted()
        for site in sites { lines.append("  \(id("site", site)) [label=\(quoted(site)), shape=note];") }
        for type in types {
            lines.append("  \(id("type", type)) [label=\(quoted(type)), shape=box, style=\"rounded,bold\"];")
        }
        for name in classes {
            let troubled = troubles.keys.contains { $0.to == name }
            let color = troubled ? ", color=red, fontcolor=red" : ""
            lines.append("  \(id("class", name)) [label=\(quoted(name)), shape=ellipse\(color)];")
        }
        for (edge, count) in publishes.sorted(by: { ($0.key.from, $0.key.to) < ($1.key.from, $1.key.to) }) {
            lines.append("  \(id("site", edge.from)) -> \(id("type", edge.to)) [label=\"\(count)\"];")
        }
        for (edge, calls) in handles.sorted(by: { ($0.key.from, $0.key.to) < ($1.key.from, $1.key.to) }) {
            var label = calls > 0 ? "\(calls) calls" : ""
            var style = ""
            if let trouble = troubles[edge] {
                label += (label.isEmpty ? "" : ", ") + "\(trouble) failed or slow"
                style = ", color=red, fontcolor=red"
            }
            lines.append(
                "  \(id("type", edge.from)) -> \(id("class", edge.to)) [label=\(quoted(label))\(style)];")
        }
        for (edge, count) in triggers.sorted(by: { ($0.key.from, $0.key.to) < ($1.key.from, $1.key.to) }) {
            lines.append(
                "  \(id("type", edge.from)) -> \(id("type", edge.to)) [label=\"\(count)\", style=dashed, color=red];"
            )
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }
}
