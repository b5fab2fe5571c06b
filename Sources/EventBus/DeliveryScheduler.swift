import Dispatch
import Synchronization

/// Where a handler that does not simply run on the publisher's thread runs.
///
/// Entries without a scheduler are called in the publish, on the publisher's thread; that is
/// the fast path, and it checks only that this reference is `nil`.
protocol DeliveryScheduler: AnyObject, Sendable {
    /// Runs `job` later, after every job scheduled before it; never waits for it.
    func schedule(_ job: @escaping @Sendable () -> Void)
}

/// Runs deliveries on a dispatch queue the subscriber chose.
final class QueueScheduler: DeliveryScheduler {
    let queue: DispatchQueue

    init(_ queue: DispatchQueue) {
        self.queue = queue
    }

    func schedule(_ job: @escaping @Sendable () -> Void) {
        queue.async(execute: job)
    }
}

/// One job waiting in an ``ActorMailbox``: a closure, or the deliveries of one event that one
/// delivery loop handed to the mailbox one after another (``JoinedDeliveries``).
enum MailboxJob: Sendable {
    case closure(@Sendable () -> Void)
    case joined(JoinedDeliveries)

    @inline(__always)
    func run() {
        switch self {
        case .closure(let job): job()
        case .joined(let deliveries): deliveries.run()
        }
    }
}

/// Deliveries of one event that one delivery loop scheduled on a mailbox with nothing else
/// scheduled between them, run one after another as one job.
///
/// A loop that meets ten main-actor subscribers of an event from another thread would
/// otherwise allocate ten closures, each freed on the main thread: an allocation and a free
/// that crosses threads per delivery, where this is one object for the event and an array
/// that grows. Joining changes no order: a delivery joins only the mailbox's last waiting job,
/// and only one its own loop made, so nothing could have run between the two had each been a
/// job of its own. A mailbox seals a job by taking it: once taken it is no longer waiting,
/// and the next delivery starts a new one. A turn checks its time between jobs, so it runs a
/// joined job to its end: past its time by at most one event's main-actor handlers of one
/// loop, where a job each let it stop between two of them.
///
/// `@unchecked Sendable`: the list of joined deliveries grows only under the mailbox's lock
/// while the job waits, and is read only after a turn took the job under that lock.
class JoinedDeliveries: @unchecked Sendable {
    /// Runs every delivery of the job, in the order they joined.
    func run() {
        preconditionFailure("every joined job is an EntryDeliveries, which runs its own entries")
    }
}

/// Deliveries waiting to run on one actor, run there in the order they were scheduled.
///
/// Handlers isolated to an actor are called only from here (see ``IsolatedHandler``). Jobs wait
/// in one list; the first job after the list was empty starts a task on the actor that runs
/// jobs until the list is empty again, so a burst of events costs one task, and only one task
/// per mailbox runs jobs at a time, which keeps them in order. A task runs jobs for about
/// ``turnNanoseconds`` and leaves the rest to a new task, so that the actor gets to its other
/// work while a publisher outpaces the handlers.
///
/// For the main actor, a publish made on the main actor runs its deliveries at once, in
/// subscription order with the other subscribers, as a view controller expects: it first runs
/// what is waiting, so no subscriber sees an older event after a newer one. A publish made from
/// a handler that this mailbox is running joins the list instead, behind what waits.
final class ActorMailbox: DeliveryScheduler, Sendable {
    /// The actor the jobs run on.
    enum Target {
        case mainActor
        case actor(any Actor)
    }

    let target: Target

    /// What the mailbox's lock guards.
    private struct Contents {
        /// Jobs a turn took and did not get to, oldest first: a slice of its batch, so that
        /// handing them on copies nothing however many wait. They run before ``waiting``.
        var carriedOver: ArraySlice<MailboxJob> = []
        /// Jobs not yet taken, oldest first.
        var waiting: [MailboxJob] = []
        /// Whether a task that will run the waiting jobs exists; set by the job that finds
        /// none, cleared by that task once it finds the list empty.
        var taskScheduled = false
        /// Whether jobs are running right now; on the main actor, that is on the current stack.
        var isRunningJobs = false

        var hasJobs: Bool { !carriedOver.isEmpty || !waiting.isEmpty }

        /// The jobs to run next, oldest first, taken out of the lists; empty when none waits.
        mutating func takeJobs() -> ArraySlice<MailboxJob> {
            let carried = carriedOver
            // Emptied even when empty: an empty slice may still hold a run batch's buffer.
            carriedOver = []
            if !carried.isEmpty { return carried }
            defer { waiting = [] }
            return waiting[...]
        }
    }

    private let contents = LockedValue(Contents())
    /// Whether jobs wait or run, as last set under the lock; read without it, so that a
    /// main-actor publish with nothing queued pays for no lock.
    private let isBusy = Atomic<Bool>(false)

    init(_ target: Target) {
        self.target = target
    }

    /// Whether this is a main-actor mailbox.
    var isMainActor: Bool {
        if case .mainActor = target { return true }
        return false
    }

    /// Whether a delivery offered now may run at once, in the publish: only on the main actor,
    /// for a main-actor mailbox, and not from a handler the mailbox is running. Before saying
    /// yes, the mailbox runs the deliveries still waiting, so that a subscriber sees events in
    /// the order they were published; when a turn's time runs out first, it says no, and the
    /// delivery is queued behind them.
    func runsInlineNow() -> Bool {
        guard isMainActor, MainActorCheck.isCurrent else { return false }
        // A job scheduled by another thread right after this load is a concurrent publish,
        // which no order binds to this one.
        if !isBusy.load(ordering: .acquiring) { return true }
        let (isNested, hasJobs) = contents.withLock { ($0.isRunningJobs, $0.hasJobs) }
        if isNested { return false }
        guard hasJobs else { return true }
        return ThreadDeliveryState.currentUnretained.borrow { thread in
            // Once a turn ran out in this delivery loop, every later main-actor delivery of the
            // loop (its other lists, the events its handlers publish) queues behind, in order.
            if thread.queuesMainActorDeliveries { return false }
            if runWaitingJobs() { return true }
            thread.queuesMainActorDeliveries = true
            return false
        }
    }

    func schedule(_ job: @escaping @Sendable () -> Void) {
        schedule(.closure(job))
    }

    /// Appends `job` to the waiting jobs, and starts a task to run them if none will.
    private func schedule(_ job: MailboxJob) {
        let startsTask = contents.withLock { contents in
            contents.waiting.append(job)
            isBusy.store(true, ordering: .releasing)
            defer { contents.taskScheduled = true }
            return !contents.taskScheduled
        }
        guard startsTask else { return }
        startTask()
    }

    /// Adds a delivery to `open`, a job the calling loop scheduled on this mailbox, if it is
    /// still the last waiting job; `add` runs under the mailbox's lock. Returns whether it
    /// did; when not, the caller schedules a job of its own.
    func join(_ open: JoinedDeliveries, adding add: (JoinedDeliveries) -> Void) -> Bool {
        contents.withLock { contents in
            guard case .joined(let last)? = contents.waiting.last, last === open else { return false }
            add(open)
            return true
        }
    }

    /// Schedules `job`, a new job of joined deliveries holding its first.
    func schedule(joined job: JoinedDeliveries) {
        schedule(.joined(job))
    }

    /// Starts the task that runs the waiting jobs on the target actor.
    private func startTask() {
        switch target {
        case .mainActor:
            Task { @MainActor in self.runTurn() }
        case .actor(let actor):
            Task { await self.runTurn(on: actor) }
        }
    }

    /// Runs the waiting jobs in `actor`'s isolation.
    private func runTurn(on actor: isolated any Actor) {
        runTurn()
    }

    /// The scheduled task's turn: runs jobs for up to ``turnNanoseconds``; when some still wait,
    /// a new task goes on, behind whatever else the actor has to do.
    private func runTurn() {
        if !runWaitingJobs(endingTask: true) { startTask() }
    }

    /// How long one turn runs waiting jobs before it lets the actor do other work: a quarter of
    /// a frame at 60 Hz. A publisher faster than the handlers would otherwise keep the actor
    /// (on the main actor, the app's user interface) in one turn for as long as it publishes.
    /// A turn ends after the job during which this time passed.
    static let turnNanoseconds = 4_000_000

    /// Runs jobs until none waits, or until a turn's time is up. The caller is on the target
    /// actor.
    ///
    /// - Parameter endingTask: Whether this is the scheduled task, which clears
    ///   `taskScheduled` when it finds the list empty, in the same critical section, so that
    ///   the next job scheduled after that starts a new task.
    /// - Returns: `true` when no job waits; `false` when the turn's time ran out first: the jobs
    ///   not run are carried over, in order, ahead of those that came meanwhile, and
    ///   `taskScheduled` stays set.
    private func runWaitingJobs(endingTask: Bool = false) -> Bool {
        let wasRunning = contents.withLock { contents in
            defer { contents.isRunningJobs = true }
            isBusy.store(true, ordering: .releasing)
            return contents.isRunningJobs
        }
        // Ends the run under the lock; the flags are cleared in the same critical section that
        // found no job left.
        func end(_ contents: inout Contents) -> Bool {
            contents.isRunningJobs = wasRunning
            guard !contents.hasJobs else { return false }
            if endingTask { contents.taskScheduled = false }
            isBusy.store(wasRunning, ordering: .releasing)
            return true
        }
        let deadline = System.monotonicNanoseconds() + Self.turnNanoseconds
        while true {
            let batch = contents.withLock { contents -> ArraySlice<MailboxJob> in
                let batch = contents.takeJobs()
                if batch.isEmpty { _ = end(&contents) }
                return batch
            }
            guard !batch.isEmpty else { return true }
            var next = batch.startIndex
            while next < batch.endIndex {
                batch[next].run()
                next += 1
                guard System.monotonicNanoseconds() >= deadline else { continue }
                // Time is up: the rest of the batch goes first next time. An empty rest is not
                // kept: a slice holds its whole buffer, with every job already run.
                let rest = next < batch.endIndex ? batch[next...] : []
                return contents.withLock { contents in
                    contents.carriedOver = rest
                    return end(&contents)
                }
            }
        }
    }
}

/// Tells whether the calling code runs on the main actor's executor.
///
/// The main actor's executor is the main dispatch queue. The process's first thread runs only
/// main-actor code (Darwin's main thread; on Linux top-level code and the main queue's jobs, and
/// nothing once `dispatchMain()` parks it), so on that thread the answer is yes. But the queue's
/// jobs do not always run there: on Linux, after `dispatchMain()` (as under an async `main`, or
/// `swift test`), they run on other threads, where only the queue can tell: a value set on the
/// main queue reads back only in code that the queue, or a queue serialized with it, is running.
enum MainActorCheck {
    /// Whether the caller runs on the main actor's executor; within a publish, asked once.
    ///
    /// Where the thread tells (Darwin), a check of the thread, which costs less than asking the
    /// queue (11 ns through libdispatch's C call on Linux, about 30 through
    /// `DispatchQueue.getSpecific`).
    static var isCurrent: Bool {
        if let byThread = System.isOnMainActorByThread() { return byThread }
        return ThreadDeliveryState.currentUnretained.borrow { thread in
            if let known = thread.isOnMainActor { return known }
            // The process's first thread runs main-actor code only: top-level code and the main
            // queue's jobs (libdispatch parks it for good when `dispatchMain()` gives it up), and
            // Swift's runtime too counts it as the main actor's. Only other threads ask the queue.
            if thread.traceThread.isMain { return true }
            let isCurrent = System.isOnMainQueue()
            if thread.depth > 0 { thread.isOnMainActor = isCurrent }
            return isCurrent
        }
    }
}

/// Whether main-actor handlers run in place during one delivery of one event.
///
/// Asking the mailbox means finding out whether the publisher runs on the main actor and whether
/// deliveries wait; the answer holds for the whole delivery, so the first main-actor handler
/// asks and the others read the answer. A job another thread queues meanwhile is a concurrent
/// publish, which no order binds to this one.
struct MainActorPass {
    private enum Decision: UInt8 {
        case undecided
        /// Undecided, in a loop that never joins deliveries (``init(joiningDeliveries:)``).
        case undecidedAlone
        case inPlace
        case queued
        /// Queued, in a loop that never joins deliveries.
        case queuedAlone
        /// Queued, and this loop has scheduled a job of joined deliveries, which its thread's
        /// delivery frame holds (``ThreadDeliveryState/openJoinedDeliveries``).
        case queuedJoining
    }

    /// One byte, and no reference: the loops keep it in place for every entry they offer to,
    /// and a pass that held the job itself (16 bytes) added register moves to their code.
    private var decision: Decision

    /// A pass for one delivery loop.
    ///
    /// - Parameter joiningDeliveries: Whether the loop's queued main-actor deliveries may join
    ///   one job, held by the thread's delivery frame: only for the frame's own loops (the
    ///   typed, protocol and wildcard loops of ``EventBus``), which run one after another. Any
    ///   other loop may run in the middle of one of those (the lifecycle observers' loop runs
    ///   wherever a subscription changes or a slow call is reported), and must neither replace
    ///   the job the frame holds for it nor join it: that job is another event's.
    init(joiningDeliveries: Bool = false) {
        decision = joiningDeliveries ? .undecided : .undecidedAlone
    }

    /// Whether a handler of `mailbox` may run now, in the publish.
    @inline(__always)
    mutating func allowsInline(through mailbox: ActorMailbox) -> Bool {
        switch decision {
        case .inPlace: return true
        case .queued, .queuedAlone, .queuedJoining: return false
        case .undecided, .undecidedAlone: return decide(mailbox)
        }
    }

    /// Whether this loop's queued main-actor deliveries may join one job held by the frame.
    var joinsDeliveries: Bool { decision == .queued || decision == .queuedJoining }

    /// Whether this loop scheduled a job of joined deliveries, held by the thread's frame,
    /// that its next queued main-actor delivery may join.
    var hasOpenJoinedDeliveries: Bool { decision == .queuedJoining }

    /// Notes that this loop scheduled a job of joined deliveries, held by its thread's frame.
    mutating func noteOpenJoinedDeliveries() {
        if decision == .queued { decision = .queuedJoining }
    }

    @inline(never)
    private mutating func decide(_ mailbox: ActorMailbox) -> Bool {
        let inPlace = mailbox.runsInlineNow()
        decision = inPlace ? .inPlace : decision == .undecidedAlone ? .queuedAlone : .queued
        return inPlace
    }
}
