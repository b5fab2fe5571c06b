import Synchronization

/// A reference to an object that the bus borrows without counting: every `Unmanaged` of the
/// bus, behind one type, with the reasons each use is valid. A reference counted by hand is a
/// ``RetainedReference``, which the compiler lets go exactly once.
///
/// The publish path counts no references: a retain and a release per delivery would write, on
/// every publish, cache lines that every publishing thread writes (docs/publish-path.md). What
/// keeps each object alive instead is one of these invariants, and every use names its number.
///
/// Invariants:
/// 1. **Slots.** A bus keeps every ``TypeSlot`` it made for as long as it lives (``BusState``
///    never removes one), and a publish runs while its caller holds the bus. A thread's cache of
///    slots borrows them; a cache entry is used only for the bus whose serial number it names.
/// 2. **A thread's state.** Each thread's ``ThreadDeliveryState`` is retained once, when the
///    thread first publishes, and its ``RetainedReference`` handed over to a thread-local; the
///    thread-local's destructor adopts and releases it when the thread ends. Code on the thread
///    borrows it.
/// 3. **Counter stripes.** A ``TypeCounters`` holds its stripes in an array; its slot keeps it.
///    Publishes borrow the stripes.
/// 4. **Snapshots.** A slot's current ``EntrySnapshot`` is retained once by its
///    ``SnapshotPublication`` (a ``RetainedReference`` handed over to an atomic) and adopted back
///    when it is retired; a publish borrows it only while
///    a hazard announces it (the invariants of SnapshotPublication.swift). Hazards compare
///    announced snapshots by ``opaque`` address only, since one may already be freed.
/// 5. **Entries.** A snapshot holds its entries unretained; the entries stay allocated while any
///    snapshot that lists them can be read (SnapshotPublication.swift, invariant 4). A delivery
///    that copied its lists instead holds the copies for the whole delivery. Every entry of a
///    slot was created as an `Entry` of the slot's event type, so an entry reads the event a
///    delivery passes by address as its own type without checking
///    (``SubscriberEntry/offer(at:marker:timer:mainActor:)``).
/// 6. **Delivery markers.** A thread's ``DeliveryMarker`` belongs to its thread's state
///    (invariant 2); entries borrow it for a delivery, and a marker records the entry it is
///    delivering by address only.
struct UnsafeReference<Object: AnyObject> {
    /// The reference, counted by hand.
    ///
    /// Every member is `@_transparent`, as swift-atomics' are: inlined even in a debug build,
    /// where a call per borrow made the stress tests five times slower.
    @usableFromInline
    let unmanaged: Unmanaged<Object>

    @_transparent
    fileprivate init(_ unmanaged: Unmanaged<Object>) {
        self.unmanaged = unmanaged
    }

    /// `object`, not retained: something else keeps it alive (one of the invariants).
    @_transparent
    init(unretained object: Object) {
        unmanaged = .passUnretained(object)
    }

    /// The object at `pointer`, which ``opaque`` gave for a reference still valid.
    @_transparent
    init(opaque pointer: UnsafeRawPointer) {
        unmanaged = .fromOpaque(pointer)
    }

    /// The object's address, for a thread-local or for comparing references.
    @_transparent
    var opaque: UnsafeMutableRawPointer { unmanaged.toOpaque() }

    /// Runs `body` with the object, neither retained nor released around the call.
    @_transparent
    func borrow<Result>(_ body: (Object) throws -> Result) rethrows -> Result {
        try unmanaged._withUnsafeGuaranteedRef(body)
    }

    /// The object, retained by the caller for as long as it uses it.
    @_transparent
    var object: Object { unmanaged.takeUnretainedValue() }

    /// Keeps `object` alive up to this point of the caller, where `withExtendedLifetime`'s
    /// generic body would be a call per delivery.
    @_transparent
    static func keepAlive(_ object: Object) {
        _fixLifetime(object)
    }
}

/// A reference retained once by hand, with one owner: it cannot be copied, and going away
/// releases it, so the compiler checks that every retain is released exactly once.
///
/// An owner may hand its reference over to storage the compiler cannot follow (an `Atomic`, a
/// thread-local) as an ``UnsafeReference``; whoever takes it out again adopts it.
struct RetainedReference<Object: AnyObject>: ~Copyable {
    private let unmanaged: Unmanaged<Object>

    /// `object`, retained once.
    @_transparent
    init(retaining object: Object) {
        unmanaged = .passRetained(object)
    }

    /// Takes ownership of the retain behind `reference`, which ``handOver()`` gave.
    @_transparent
    init(adopting reference: UnsafeReference<Object>) {
        unmanaged = reference.unmanaged
    }

    deinit {
        unmanaged.release()
    }

    /// The object, borrowed: valid while this owner lives.
    @_transparent
    var borrowed: UnsafeReference<Object> { UnsafeReference(unmanaged) }

    /// Gives up the reference.
    @_transparent
    consuming func release() {}

    /// Hands the retain over to the caller as a strong reference.
    @_transparent
    consuming func take() -> Object {
        let object = unmanaged.takeRetainedValue()
        discard self
        return object
    }

    /// Hands the retain over to storage that keeps a raw reference, to be adopted later with
    /// ``init(adopting:)``.
    @_transparent
    consuming func handOver() -> UnsafeReference<Object> {
        let reference = UnsafeReference(unmanaged)
        discard self
        return reference
    }
}

extension UnsafeReference: Equatable {
    /// Whether both refer to the same object.
    @_transparent
    static func == (left: UnsafeReference, right: UnsafeReference) -> Bool {
        left.opaque == right.opaque
    }
}

// An `Atomic` holds the reference as `Unmanaged` does: one word, `nil` as zero.
extension UnsafeReference: AtomicRepresentable {
    typealias AtomicRepresentation = Unmanaged<Object>.AtomicRepresentation

    @_transparent
    static func encodeAtomicRepresentation(_ value: consuming UnsafeReference) -> AtomicRepresentation {
        Unmanaged<Object>.encodeAtomicRepresentation(value.unmanaged)
    }

    @_transparent
    static func decodeAtomicRepresentation(_ storage: consuming AtomicRepresentation) -> UnsafeReference {
        UnsafeReference(Unmanaged<Object>.decodeAtomicRepresentation(storage))
    }
}

extension UnsafeReference: AtomicOptionalRepresentable {
    typealias AtomicOptionalRepresentation = Unmanaged<Object>.AtomicOptionalRepresentation

    @_transparent
    static func encodeAtomicOptionalRepresentation(
        _ value: consuming UnsafeReference?
    ) -> AtomicOptionalRepresentation {
        // Not `value.map(\.unmanaged)`: a key path is applied at run time in a debug build.
        guard let value else { return Unmanaged<Object>.encodeAtomicOptionalRepresentation(nil) }
        return Unmanaged<Object>.encodeAtomicOptionalRepresentation(value.unmanaged)
    }

    @_transparent
    static func decodeAtomicOptionalRepresentation(
        _ storage: consuming AtomicOptionalRepresentation
    ) -> UnsafeReference? {
        guard let unmanaged = Unmanaged<Object>.decodeAtomicOptionalRepresentation(storage) else {
            return nil
        }
        return UnsafeReference(unmanaged)
    }
}

// Sending the reference shares the object, as sending the object would.
extension UnsafeReference: Sendable where Object: Sendable {}
