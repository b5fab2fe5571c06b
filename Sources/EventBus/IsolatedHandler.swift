/// A subscriber's handler together with the isolation it was written in, callable without
/// `await` by code that already runs in that isolation.
///
/// The subscribe methods take their handler as `@isolated(any)` and inherit the caller's actor
/// context, so a closure written in a `@MainActor` view controller is a main-actor closure and
/// may call the controller's methods, while a closure written anywhere else has no isolation.
/// The language calls an `@isolated(any)` function only with `await`; a bus whose `publish` is
/// synchronous, and whose plain handlers must cost no more than a closure call, cannot.
///
/// ## Why calling it synchronously is sound
///
/// For a synchronous `@isolated(any)` function `f`, `await f(x)` compiles to two steps: switch to
/// the executor of `f.isolation` (SIL's `hop_to_executor`), then apply `f` exactly as a plain
/// function value is applied. The isolation is carried inside the function's context, not in
/// its calling convention: the value has the size and layout of a plain closure (checked when a
/// handler is stored), and the closure reads its own isolation
/// from its context. So once the caller is already on that executor, the switch does nothing,
/// and applying the reinterpreted value is the same call. This is what the standard library's
/// `MainActor.assumeIsolated` does with a `@MainActor` closure.
///
/// The obligation moves to the bus: ``callInIsolation`` may be called only where
/// ``isolation`` holds: anywhere when it is `nil` (the handler is nonisolated and `@Sendable`,
/// so any thread may call it), and on the actor's executor otherwise. ``ActorMailbox`` is the
/// only place that calls an isolated handler, and it does so from a job running on that actor,
/// or for the main actor also from a publish it found running on the main actor's executor.
struct IsolatedHandler<Payload>: Sendable {
    /// The actor the handler must run on, or `nil` when it may run on any thread.
    let isolation: (any Actor)?
    /// The handler, to be called only in ``isolation`` (see the type's discussion).
    let callInIsolation: @Sendable (Payload) -> Void

    init(_ handler: @escaping @Sendable @isolated(any) (Payload) -> Void) {
        isolation = handler.isolation
        // Read through memory rather than with `unsafeBitCast`: a function value passed to a
        // generic function is rewrapped in a thunk for its most general form, and one more
        // thunk unwraps the result; that cost two extra calls on every delivery. Two stored
        // properties of the same generic shape are laid out alike, so the bytes are read as
        // they are, and the copy read out retains the context like any other copy.
        precondition(
            MemoryLayout<IsolatedStorage<Payload>>.size == MemoryLayout<PlainStorage<Payload>>.size,
            "an @isolated(any) function no longer has the layout of a plain one")
        var stored = IsolatedStorage(handler: handler)
        // The struct, not the function, comes out of the generic closure: a function returned
        // as a generic result would be rewrapped again.
        let plain = withUnsafePointer(to: &stored) { pointer in
            UnsafeRawPointer(pointer).load(as: PlainStorage<Payload>.self)
        }
        callInIsolation = plain.handler
    }

    /// A handler that may throw, its errors handed to `failed` with the payload, in the
    /// handler's isolation; read as a plain one as ``init(_:)`` explains.
    init(
        throwing handler: @escaping @Sendable @isolated(any) (Payload) throws -> Void,
        failed: @escaping @Sendable (Payload, any Error) -> Void
    ) {
        isolation = handler.isolation
        precondition(
            MemoryLayout<IsolatedThrowingStorage<Payload>>.size
                == MemoryLayout<PlainThrowingStorage<Payload>>.size,
            "an @isolated(any) function no longer has the layout of a plain one")
        var stored = IsolatedThrowingStorage(handler: handler)
        let plain = withUnsafePointer(to: &stored) { pointer in
            UnsafeRawPointer(pointer).load(as: PlainThrowingStorage<Payload>.self)
        }
        let call = plain.handler
        callInIsolation = { payload in
            do {
                try call(payload)
            } catch {
                failed(payload, error)
            }
        }
    }

    /// Whether the handler is isolated to the main actor.
    var isMainActor: Bool {
        guard let isolation else { return false }
        return isolation === MainActor.shared
    }
}

/// A stored `@isolated(any)` handler, to be read as a ``PlainStorage`` of the same shape.
private struct IsolatedStorage<Payload> {
    let handler: @Sendable @isolated(any) (Payload) -> Void
}

/// A stored plain handler, the same shape as ``IsolatedStorage``.
private struct PlainStorage<Payload> {
    let handler: @Sendable (Payload) -> Void
}

/// A stored throwing `@isolated(any)` handler, to be read as a ``PlainThrowingStorage``.
private struct IsolatedThrowingStorage<Payload> {
    let handler: @Sendable @isolated(any) (Payload) throws -> Void
}

/// A stored throwing plain handler, the same shape as ``IsolatedThrowingStorage``.
private struct PlainThrowingStorage<Payload> {
    let handler: @Sendable (Payload) throws -> Void
}
