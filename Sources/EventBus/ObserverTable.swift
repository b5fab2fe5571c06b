/// The bus's records of the observer objects that hold subscriptions, and of the objects the
/// app expects to be deallocated; part of ``BusState``, so guarded by the bus's lock.
///
/// Its size follows the live population: a record goes with its object's last subscription,
/// after which the object counts only in ``reclaimedPerClass``, and a watch goes once its object
/// has been seen deallocated.
struct ObserverTable {
    /// How often, at most, bus operations check the watched objects.
    static let watchCheckInterval = Duration.milliseconds(100)

    /// The records of objects holding subscriptions (alive, or dead and not yet reclaimed), by
    /// serial.
    private(set) var records: [UInt64: ObserverRecord] = [:]
    /// The serial of the latest object seen at each address. An address is reused once an
    /// object is freed, possibly before the dead one's entries go, so a match is confirmed
    /// through the record's weak reference.
    private var serialByIdentity: [ObjectIdentifier: UInt64] = [:]
    /// The class names of every observer seen, each once; records and counts refer to a class
    /// by its position here, so that a snapshot tallies without hashing names.
    private(set) var classNames: [String] = []
    private var classIndexByType: [ObjectIdentifier: Int] = [:]
    /// Deallocated instances whose records are gone, per class, by position in ``classNames``.
    private(set) var reclaimedPerClass: [Int] = []
    /// The objects the app expects to go, by serial.
    private var watchesBySerial: [UInt64: DeallocationWatch] = [:]
    /// The serial of the latest watched object at each address, confirmed like
    /// ``serialByIdentity``.
    private var watchedSerialByIdentity: [ObjectIdentifier: UInt64] = [:]
    private var lastSerial: UInt64 = 0
    /// When bus operations next check the watches.
    private var nextWatchCheck: ContinuousClock.Instant?

    /// The record of `observer`, made if it has none.
    ///
    /// The caller holds `observer` strongly, and weak references are read only where the
    /// address matches, so a read under the lock meets `observer` itself or a dead object, and
    /// cannot end an object's life here (whose `deinit` could call the bus and deadlock).
    mutating func record(for observer: AnyObject, now: ContinuousClock.Instant) -> ObserverRecord {
        let identity = ObjectIdentifier(observer)
        if let serial = serialByIdentity[identity], let record = records[serial], record.observer === observer
        {
            return record
        }
        let serial = existingWatch(for: observer)?.serial ?? nextSerial()
        let classIndex = classIndex(of: observer)
        let record = ObserverRecord(
            serial: serial, observer: observer, classIndex: classIndex, className: classNames[classIndex],
            now: now)
        records[serial] = record
        serialByIdentity[identity] = serial
        return record
    }

    /// The record of `observer` if it has one; the caller holds `observer` strongly.
    func existingRecord(for observer: AnyObject) -> ObserverRecord? {
        guard let serial = serialByIdentity[ObjectIdentifier(observer)], let record = records[serial],
            record.observer === observer
        else { return nil }
        return record
    }

    /// The objects the app expects to go.
    var watches: [DeallocationWatch] { Array(watchesBySerial.values) }

    /// The watch of `object` if it has one; the caller holds `object` strongly.
    private func existingWatch(for object: AnyObject) -> DeallocationWatch? {
        guard let serial = watchedSerialByIdentity[ObjectIdentifier(object)],
            let watch = watchesBySerial[serial],
            watch.watches(object)
        else { return nil }
        return watch
    }

    /// Notes that `count` entries of `record`'s observer left `slot`; drops the record from the
    /// table if that was its last subscription.
    ///
    /// - Parameter deallocated: Whether the object is known to be deallocated, so that it
    ///   counts in ``reclaimedPerClass``.
    mutating func noteRemoved(_ record: ObserverRecord, from slot: TypeSlot, count: Int, deallocated: Bool) {
        guard record.isInTable else { return }
        record.noteRemoved(from: slot, count: count)
        guard record.subscriptionCount == 0 else { return }
        record.isInTable = false
        record.isBeingReclaimed = false
        records[record.serial] = nil
        if serialByIdentity[record.identity] == record.serial { serialByIdentity[record.identity] = nil }
        if deallocated || record.firstSeenDead != nil {
            reclaimedPerClass[record.classIndex] += 1
        }
    }

    /// Watches `object`, or watches it anew with a new deadline if it is watched already; the
    /// caller holds `object` strongly.
    mutating func watch(
        _ object: AnyObject, within: Duration, reason: String, now: ContinuousClock.Instant
    ) -> DeallocationWatch {
        let serial = existingRecord(for: object)?.serial ?? existingWatch(for: object)?.serial ?? nextSerial()
        let watch = DeallocationWatch(
            serial: serial, target: object, className: classNames[classIndex(of: object)], reason: reason,
            within: within, now: now)
        watchesBySerial[serial] = watch
        watchedSerialByIdentity[watch.identity] = serial
        nextWatchCheck = min(nextWatchCheck ?? watch.deadline, watch.deadline)
        return watch
    }

    /// Whether bus operations should check the watches now; if so, the next check is put off by
    /// ``watchCheckInterval``. Reads `clock` only while something is watched.
    mutating func isWatchCheckDue(clock: BusClock) -> Bool {
        guard !watchesBySerial.isEmpty, let due = nextWatchCheck else { return false }
        let now = clock.now()
        guard now >= due else { return false }
        nextWatchCheck = now + Self.watchCheckInterval
        return true
    }

    /// Applies what a check outside the lock found: `gone` are watches whose object was
    /// deallocated; returns the watches that became suspects, and the suspects that cleared.
    mutating func settle(
        checked: [DeallocationWatch], alive: [Bool], now: ContinuousClock.Instant
    ) -> (suspected: [DeallocationWatch], cleared: [DeallocationWatch]) {
        var suspected: [DeallocationWatch] = []
        var cleared: [DeallocationWatch] = []
        for (watch, isAlive) in zip(checked, alive) {
            // A watch replaced meanwhile by a newer one for the same object is the newer one's
            // business.
            guard watchesBySerial[watch.serial] === watch else { continue }
            if !isAlive {
                watchesBySerial[watch.serial] = nil
                if watchedSerialByIdentity[watch.identity] == watch.serial {
                    watchedSerialByIdentity[watch.identity] = nil
                }
                if watch.suspectedAt != nil { cleared.append(watch) }
                if let record = records[watch.serial], record.firstSeenDead == nil {
                    record.firstSeenDead = now
                }
            } else if watch.suspectedAt == nil, now >= watch.deadline {
                watch.suspectedAt = now
                suspected.append(watch)
            }
        }
        var pending: ContinuousClock.Instant?
        var hasSuspects = false
        for watch in watchesBySerial.values {
            if watch.suspectedAt == nil {
                pending = min(pending ?? watch.deadline, watch.deadline)
            } else {
                hasSuspects = true
            }
        }
        // Suspects are checked too, to notice when they go, but no more often than the interval.
        let soonest = hasSuspects ? now + Self.watchCheckInterval : nil
        nextWatchCheck = [pending, soonest].compactMap { $0 }.min()
        return (suspected, cleared)
    }

    /// Marks the records with serials in `serials`, seen dead at `now`, unless seen earlier.
    func noteSeenDead(_ serials: [UInt64], at now: ContinuousClock.Instant) {
        for serial in serials {
            if let record = records[serial], record.firstSeenDead == nil { record.firstSeenDead = now }
        }
    }

    /// The position of `object`'s class in ``classNames``, added on first sight. Looked up by the
    /// class's identity, so that only a class's first object pays for its name.
    private mutating func classIndex(of object: AnyObject) -> Int {
        let type = ObjectIdentifier(Swift.type(of: object))
        if let index = classIndexByType[type] { return index }
        classNames.append(String(describing: Swift.type(of: object)))
        reclaimedPerClass.append(0)
        classIndexByType[type] = classNames.count - 1
        return classNames.count - 1
    }

    private mutating func nextSerial() -> UInt64 {
        lastSerial += 1
        return lastSerial
    }
}
