/// The main-actor deliveries of one event that one delivery loop offered one after another,
/// handed to the main actor's mailbox as one job when the loop ends.
///
/// An app publishing from a background thread to main-actor subscribers (its screens) made one
/// job per subscriber: a closure allocated on the publishing thread and freed on the main
/// thread, a lock taken, a clock read and the cause's and timer's references retained, each
/// time. The publisher spent about 410 ns per queued delivery, more than
/// `DispatchQueue.main.async` (350 ns), and the frees on the main thread contended with the
/// publisher's allocations for the allocator's lock. Gathered, one event's deliveries share one
/// job, one cause, one timer and one reading of the clock.
///
/// Order is kept: a batch holds deliveries offered consecutively to the same mailbox by the
/// same loop; anything else handed to that mailbox from the thread meanwhile (a delivery a
/// nested loop offers, a sticky event released, a lifecycle change) sends the batch first.
class MainActorBatch: @unchecked Sendable {
    /// Where the loop keeps the event it offers: what tells one loop's batch from another's
    /// while both run on the thread (a loop's storage outlives its batch, which it sends when
    /// it ends).
    let source: UnsafeRawPointer
    let mailbox: ActorMailbox
    /// Whether the deliveries are timed; a delivery timed otherwise starts a new batch.
    let isTimed: Bool
    /// The subscriptions, in the order the loop offered them the event.
    var entries: [SubscriberEntry]

    init(source: UnsafeRawPointer, mailbox: ActorMailbox, isTimed: Bool, first: SubscriberEntry) {
        self.source = source
        self.mailbox = mailbox
        self.isTimed = isTimed
        entries = [first]
    }

    /// Runs the deliveries in order, on the main actor; each one as a job of its own would have.
    func run() {}
}

/// A ``MainActorBatch`` of an event of type `Payload`.
final class TypedMainActorBatch<Payload: Sendable>: MainActorBatch, @unchecked Sendable {
    private let event: Payload
    private let cause: ScheduledCause?
    private let timer: ScheduledTimer?

    init(
        _ event: Payload, source: UnsafeRawPointer, mailbox: ActorMailbox, cause: ScheduledCause?,
        timer: ScheduledTimer?, first: SubscriberEntry
    ) {
        self.event = event
        self.cause = cause
        self.timer = timer
        super.init(source: source, mailbox: mailbox, isTimed: timer != nil, first: first)
    }

    override func run() {
        // Each entry was made for this batch's type (Entry<Payload>), and reads the event in
        // place through its class, as a publish's loop offers it.
        withUnsafePointer(to: event) { event in
            for entry in entries {
                entry.deliverScheduled(at: UnsafeRawPointer(event), cause: cause, timer: timer)
            }
        }
    }
}

extension ThreadDeliveryState {
    /// Adds a delivery of `event` to `entry` to the batch this thread is gathering for the loop
    /// whose event lies at `source`, or starts one, sending any other batch first.
    func batchDelivery<Payload: Sendable>(
        of event: Payload, to entry: Entry<Payload>, from source: UnsafeRawPointer,
        through mailbox: ActorMailbox,
        timer: HandlerTimer?
    ) {
        if let batch = pendingMainActorBatch, batch.source == source, batch.mailbox === mailbox,
            batch.isTimed == (timer != nil)
        {
            batch.entries.append(entry)
            return
        }
        sendMainActorBatch()
        pendingMainActorBatch = TypedMainActorBatch(
            event, source: source, mailbox: mailbox, cause: causeForScheduledDelivery(),
            timer: timer?.scheduled,
            first: entry)
    }

    /// Hands the batch this thread gathered, if any, to its mailbox.
    func sendMainActorBatch() {
        guard let batch = pendingMainActorBatch else { return }
        pendingMainActorBatch = nil
        batch.mailbox.enqueue { batch.run() }
    }

    /// Sends the calling thread's batch, when it has one: at the end of a delivery loop that
    /// gathered a delivery into one.
    static func sendPendingMainActorBatch() {
        currentUnretained.borrow { $0.sendMainActorBatch() }
    }

    /// Sends the calling thread's batch for `mailbox`, if it has one: before anything else is
    /// handed to that mailbox, which must come after the deliveries the batch holds.
    static func sendMainActorBatch(before mailbox: ActorMailbox) {
        currentUnretained.borrow { thread in
            if let batch = thread.pendingMainActorBatch, batch.mailbox === mailbox {
                thread.sendMainActorBatch()
            }
        }
    }
}
