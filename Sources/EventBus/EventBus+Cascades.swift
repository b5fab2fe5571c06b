import Synchronization

/// A handler that publishes: the event joins its cascade, which the bus stops past its limit.
extension EventBus {
    // MARK: - Cascades

    /// Queues `event`, published by a handler of the delivery loop running in `frame`, behind
    /// the current event, unless its cascade has reached the limit. Kept out of line, so that a
    /// top-level publish stays small.
    @inline(never)
    func publishFromHandler<T: Event>(
        _ event: T, fileID: StaticString, line: UInt, stickyVersion: UInt64, frame index: Int,
        on thread: ThreadDeliveryState
    ) {
        guard !thread.frames[index].halted else { return }
        let parent: (eventID: UInt64, type: any Event.Type)
        if let scheduled = thread.scheduledCause, scheduled.bus == ObjectIdentifier(self) {
            // A queued delivery that this loop ran in place, on the main actor.
            parent = (scheduled.eventID, scheduled.type)
        } else {
            parent = (thread.frames[index].current.eventID, thread.frames[index].current.type)
        }
        let origin = PublishOrigin(
            eventID: isNumberingEvents ? eventNumbers.next() : 0, causeID: parent.eventID,
            type: T.self, fileID: fileID, line: line, stickyVersion: stickyVersion,
            publishedAt: tracedPublishTime)
        if let cascadeLimit {
            guard admit(origin, parentType: parent.type, limit: cascadeLimit, frame: index, on: thread) else {
                return
            }
        }
        thread.frames[index].pending.append(
            ThreadDeliveryState.PendingDelivery(origin: origin) { self.deliver(event, on: thread) })
    }

    /// Counts one more event in the cascade of the loop running in `frame`; notes its step once
    /// the cascade is past half its limit, and stops the cascade past the limit.
    ///
    /// - Returns: Whether the event may be delivered.
    func admit(
        _ origin: PublishOrigin, parentType: any Event.Type, limit: Int, frame index: Int,
        on thread: ThreadDeliveryState
    ) -> Bool {
        let shared = thread.frames[index].record?.shared
        let count: Int
        if let shared {
            if shared.stopped.load(ordering: .acquiring) {
                halt(frame: index, on: thread)
                return false
            }
            count = shared.published.wrappingAdd(1, ordering: .relaxed).newValue
        } else {
            thread.frames[index].cascadeCount += 1
            count = thread.frames[index].cascadeCount
        }
        // A cascade this large is probably a loop: from here on its steps are noted, so that its
        // report can name the loop. Smaller cascades note nothing.
        guard count > limit / 2 else { return true }
        let step = CascadeStep(type: origin.type, site: origin.site, parentType: parentType)
        let record = thread.frames[index].record ?? CascadeRecord()
        thread.frames[index].record = record
        if count <= limit {
            if let shared {
                shared.steps.withLock { $0[ObjectIdentifier(origin.type)] = step }
            } else {
                record.steps[ObjectIdentifier(origin.type)] = step
            }
            return true
        }
        halt(frame: index, on: thread)
        // On several threads, the first to stop it reports it.
        if shared.map({ !$0.stopped.exchange(true, ordering: .acquiringAndReleasing) }) ?? true {
            record.stop = CascadeStop(
                refused: step, count: count - 1, rootType: shared?.rootType ?? thread.frames[index].rootType)
        }
        return false
    }

    /// Stops the loop running in `frame`: what is queued goes, and nothing more is queued.
    func halt(frame index: Int, on thread: ThreadDeliveryState) {
        thread.frames[index].halted = true
        thread.frames[index].pending.removeAll()
    }

    /// Publishes `event` from the handler of a delivery that waited on a queue or an actor: it
    /// is counted in the cascade of the event that was delivered, and names it as its cause.
    @inline(never)
    func publishFromScheduledHandler<T: Event>(
        _ event: T, fileID: StaticString, line: UInt, stickyVersion: UInt64, cause: ScheduledCause,
        on thread: ThreadDeliveryState
    ) {
        let busID = ObjectIdentifier(self)
        let sameBus = cause.bus == busID
        let origin = PublishOrigin(
            eventID: isNumberingEvents ? eventNumbers.next() : 0,
            causeID: sameBus ? cause.eventID : 0,
            type: T.self, fileID: fileID, line: line, stickyVersion: stickyVersion,
            publishedAt: tracedPublishTime)
        var record: CascadeRecord?
        if sameBus, let cascadeLimit {
            let shared = cause.cascade
            guard !shared.stopped.load(ordering: .acquiring) else { return }
            let count = shared.published.wrappingAdd(1, ordering: .relaxed).newValue
            let step = CascadeStep(type: T.self, site: origin.site, parentType: cause.type)
            if count > cascadeLimit {
                if !shared.stopped.exchange(true, ordering: .acquiringAndReleasing) {
                    report(
                        CascadeStop(refused: step, count: count - 1, rootType: shared.rootType),
                        steps: shared.steps.current)
                }
                return
            }
            if count > cascadeLimit / 2 { shared.steps.withLock { $0[ObjectIdentifier(T.self)] = step } }
            let continued = CascadeRecord()
            continued.shared = shared
            record = continued
        }
        let cascade = thread.runDeliveryLoop(for: busID, origin: origin, record: record) {
            deliver(event, on: thread)
        }
        if let cascade { finish(cascade) }
    }

    /// Reports the cascade `record` stopped, if it stopped one.
    @inline(never)
    func finish(_ record: CascadeRecord) {
        guard let stop = record.stop else { return }
        var steps = record.steps
        if let shared = record.shared {
            steps.merge(shared.steps.current) { local, _ in local }
        }
        report(stop, steps: steps)
    }
}
