import BusWire
import EventBus
import Foundation

/// A published event whose handlers set off another (a cause), fail, run slowly and set off a
/// loop; published from this file, so that its call site is known.
package struct MatrixPing: Event, Encodable {
    package let number: Int
}

/// What a ``MatrixPing`` handler publishes: its cause is the ping.
package struct MatrixPong: Event, Encodable {
    package let number: Int
}

/// An event whose handler publishes it again, until the bus's cascade limit stops it.
package struct MatrixLoop: Event, Encodable {}

/// The type of the scenario's sticky event.
package struct MatrixSticky: Event, Encodable {
    package let note: String
}

/// The type an async stream that nobody reads drops.
package struct MatrixStreamed: Event, Encodable {
    package let number: Int
}

/// The observer class whose handlers the scenario times and counts.
package final class MatrixScreen: Sendable {
    package init() {}
}

/// Everything a bus reports to a monitor, made to happen on one bus: each event's number, a
/// cause and a call site; handler rows with calls, failures, slow calls and a delivery's wait
/// on a busy queue; a sticky event; an
/// async stream's drops; a leak suspect; and every kind of lifecycle change. The tests that
/// check one field through every source and every output run it.
package final class EveryFieldScenario: @unchecked Sendable {
    /// The bus: a cascade limit of 4, and a handler slower than a millisecond, or a delivery
    /// that waits longer than one to start, is slow.
    package let bus = EventBus(
        name: "matrix", cascadeLimit: 4, slowHandlerThreshold: .milliseconds(1),
        slowDeliveryThreshold: .milliseconds(1))
    private let screen = MatrixScreen()
    private let failing = MatrixScreen()
    private let leakyKept = MatrixScreen()
    private var leakyFreed: MatrixScreen? = MatrixScreen()
    private var kept: [Any] = []
    private let lock = NSLock()

    /// The file events are published from, as call sites name it.
    package static let publishingFile = "TestSupport/EveryFieldScenario.swift"

    package init() {}

    /// Makes every report happen once; call it with the monitor already watching.
    package func run() {
        lock.lock()
        defer { lock.unlock() }
        let bus = self.bus
        // subscribed, and a handler that publishes (a cause) and runs slowly.
        let pong = bus.subscribe(observer: screen) { (ping: MatrixPing) in
            usleep(20_000)  // longer than the slow threshold the scenario's bus is given
            bus.publish(MatrixPong(number: ping.number))
        }
        // duplicateSubscription: the same observer, the same type again.
        let duplicate = bus.subscribe(observer: screen) { (_: MatrixPing) in }
        // handlerFailed.
        let failure = bus.subscribe(observer: failing) { (_: MatrixPing) throws in
            throw CocoaError(.featureUnsupported)
        }
        // cascadeStopped: a handler that publishes its own type.
        let loop = bus.subscribe(to: MatrixLoop.self) { _ in bus.publish(MatrixLoop()) }
        // cancelled.
        bus.subscribe(to: MatrixPong.self) { _ in }.cancel()
        // unsubscribed.
        let leaving = MatrixScreen()
        bus.subscribe(observer: leaving) { (_: MatrixPong) in }
        bus.unsubscribe(observer: leaving)
        // reclaimed: an observer that goes, found dead by the next publish of its type.
        var doomed: MatrixScreen? = MatrixScreen()
        bus.subscribe(observer: doomed!) { (_: MatrixStreamed) in }
        doomed = nil
        // leakSuspected (kept alive) and leakCleared (released after it was suspected).
        bus.subscribe(observer: leakyKept) { (_: MatrixPong) in }
        bus.expectDeallocation(of: leakyKept, within: .zero, reason: "screen closed")
        bus.expectDeallocation(of: leakyFreed!, within: .zero, reason: "screen closed")
        _ = bus.snapshot()
        leakyFreed = nil
        _ = bus.snapshot()
        // slowDelivery, and a wait: a queue handler of the pong, whose queue is busy when the
        // pong is published and stays busy a few milliseconds longer.
        let queue = DispatchQueue(label: "matrix")
        let gate = DispatchSemaphore(value: 0)
        queue.async { gate.wait() }
        let queued = bus.subscribe(to: MatrixPong.self, on: queue) { _ in }
        // A sticky event, and an async stream that drops what nobody reads.
        bus.publishSticky(MatrixSticky(note: "kept"))
        let stream = bus.events(of: MatrixStreamed.self, bufferingNewest: 1)
        for number in 1...3 { bus.publish(MatrixStreamed(number: number)) }
        bus.publish(MatrixPing(number: 1))
        bus.publish(MatrixLoop())
        usleep(5_000)
        gate.signal()
        queue.sync {}
        kept += [pong, duplicate, failure, loop, stream, queued] as [Any]
    }
}

/// Which of the fields the wire carries a stream of records lacks.
package enum EveryField {
    /// Every lifecycle kind.
    package static let lifecycleKinds: [SubscriberLifecycleEvent.Kind] = [
        .subscribed, .duplicateSubscription, .unsubscribed, .cancelled, .reclaimed, .leakSuspected,
        .leakCleared, .cascadeStopped, .handlerFailed, .slowHandler, .slowDelivery,
    ]

    /// What `records` lack of the scenario's reports, by name; empty when every field is there.
    ///
    /// - Parameter records: Records as a source delivered them, or as a file holds them.
    package static func missing(in records: [FeedRecord]) -> [String] {
        var events: [FeedEvent] = []
        var changes: [SubscriberLifecycleEvent] = []
        var snapshots: [BusSnapshot] = []
        for record in records {
            switch record {
            case .event(let event): events.append(event)
            case .lifecycle(let change): changes.append(change.change)
            case .snapshot(let snapshot): snapshots.append(snapshot.snapshot)
            default: break
            }
        }
        var missing: [String] = []
        func require(_ name: String, _ present: Bool) {
            if !present { missing.append(name) }
        }
        let pings = events.filter { $0.typeName == "MatrixPing" }
        let pongs = events.filter { $0.typeName == "MatrixPong" }
        require("event number", pings.contains { $0.trace.eventID != 0 })
        require(
            "cause",
            pongs.contains { pong in
                pong.trace.causeID != nil && pings.contains { $0.trace.eventID == pong.trace.causeID }
            })
        require(
            "call site",
            pings.contains { $0.trace.site?.fileID.hasSuffix("EveryFieldScenario.swift") == true })
        require("payload", pings.contains { $0.payload.text == #"{"number":1}"# })
        require(
            "handler rows",
            snapshots.contains {
                $0.handlers.contains { $0.observerTypeName == "MatrixScreen" && $0.calls > 0 }
            })
        require("slow calls", snapshots.contains { $0.handlers.contains { $0.slowCalls > 0 } })
        require(
            "delivery waits",
            snapshots.contains {
                $0.handlers.contains {
                    $0.eventTypeName == "MatrixPong" && $0.waits.maximum >= .milliseconds(5)
                        && $0.waits.p99 >= .milliseconds(5) && $0.waits.slowDeliveries > 0
                }
            })
        require(
            "sticky events", snapshots.contains { $0.stickyEvents.contains { $0.typeName == "MatrixSticky" } }
        )
        require("stream drops", snapshots.contains { ($0["MatrixStreamed"]?.dropped ?? 0) > 0 })
        require("failure counts", snapshots.contains { ($0["MatrixPing"]?.handlerFailures ?? 0) > 0 })
        require("leak suspects", snapshots.contains { !$0.leakSuspects.isEmpty })
        let kinds = Set(changes.map(\.kind))
        for kind in lifecycleKinds { require("lifecycle \(kind.rawValue)", kinds.contains(kind)) }
        return missing
    }

    /// The records of a file of wire-format lines.
    package static func records(inFile path: String) -> [FeedRecord] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { try? FeedRecord.decode(line: String($0) + "\n") }
    }
}
