#if NATS
    import EventBus
    import Foundation
    import Synchronization

    /// Decodes the messages of one registered event type and republishes them on the bus.
    ///
    /// Runs on the nats.c delivery thread of its subscription, one message at a time, so the
    /// decoder is used by one thread only.
    final class TypedReceiver<T: Event & Decodable>: @unchecked Sendable {
        // `@unchecked`: the decoder is used only by the one delivery thread (see above); the rest
        // is immutable, atomic or `Sendable`.
        private let bus: EventBus
        private let origin: String
        private let counters: BridgeCounters
        private let marker: RepublishMarker
        private let decoder = JSONDecoder()

        /// The parts of an envelope a receiver needs; the other fields are for monitors.
        private struct Envelope: Decodable {
            var origin: String?
            var payload: T
        }

        init(bus: EventBus, origin: String, counters: BridgeCounters, marker: RepublishMarker) {
            self.bus = bus
            self.origin = origin
            self.counters = counters
            self.marker = marker
        }

        /// Decodes one message (its bytes valid only during the call) and republishes it.
        func deliver(_ bytes: UnsafeRawBufferPointer) {
            guard !counters.closed.load(ordering: .acquiring) else { return }
            let envelope: Envelope
            do {
                envelope = try decoder.decode(Envelope.self, from: Data(bytes))
            } catch {
                counters.undecodable.add(1, ordering: .relaxed)
                return
            }
            // The server does not echo (no-echo is set), but a second connection of the same
            // bridge, or a stream replayed later, could: a bridge never takes its own events.
            guard envelope.origin != origin else { return }
            marker.arm()
            bus.publish(envelope.payload)
            marker.disarm()
            counters.received.add(1, ordering: .relaxed)
        }
    }

    /// The bridge's counts, shared by the publisher side, the bridge thread and the receivers.
    final class BridgeCounters: Sendable {
        let forwarded = Atomic<Int>(0)
        let received = Atomic<Int>(0)
        let dropped = Atomic<Int>(0)
        let undecodable = Atomic<Int>(0)
        let unencodable = Atomic<Int>(0)
        /// Set when the bridge closes: receivers stop republishing at once.
        let closed = Atomic<Bool>(false)
    }
#endif
