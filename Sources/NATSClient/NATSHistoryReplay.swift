#if NATS
    internal import CNATS
    import Dispatch
    import Synchronization

    #if canImport(Darwin)
        import Darwin
    #elseif canImport(Glibc)
        import Glibc
    #elseif canImport(Musl)
        import Musl
    #endif

    /// The messages a JetStream stream kept on a subject from a given time on, replayed in order
    /// through an ordered consumer.
    ///
    /// The consumer belongs to this object: ``cancel()`` (or deinit) unsubscribes and returns once
    /// nats.c will not call the handler again.
    package final class NATSHistoryReplay: @unchecked Sendable {
        // `@unchecked`: `subscription` is an opaque pointer used once more, by `cancel`, which
        // runs once; `context` likewise.
        private let context: OpaquePointer
        private let subscription: OpaquePointer
        private let receiver: NATSMessageReceiver
        private var cancelled = false

        /// Whether the consumer had no message to replay when it started.
        package let wasEmptyAtStart: Bool

        /// The stream sequence of the last message handed to `deliver`, or 0 before the first:
        /// a replay that stopped (a server that restarted forgot its consumer) goes on after it.
        package var lastStreamSequence: UInt64 { receiver.lastStreamSequence.load(ordering: .relaxed) }

        /// Bytes of history nats.c holds at most for the monitor to take; past them it drops
        /// messages, which the monitor counts as missing from their apps' numbering.
        static let pendingBytes: Int32 = 128 * 1024 * 1024

        /// The latest start a replay asks for, in seconds since 1970 (in 2255): nanoseconds
        /// since 1970 beyond it do not fit in 63 bits.
        static let latestStartTime = 9_000_000_000.0

        /// Starts replaying `subject` from `startTime` (seconds since 1970) on `connection`.
        ///
        /// - Parameters:
        ///   - sequence: A stream sequence to go on after, instead of starting at `startTime`.
        ///   - deliver: Called on nats.c's thread with each message's bytes (valid only during
        ///     the call) and how many the consumer has after it, when nats.c can tell.
        /// - Throws: Why the replay cannot start, for people: no stream keeps the subject, no
        ///   JetStream on the server, or a client error.
        package init(
            connection: NATSConnection, subject: String, from startTime: Double,
            after sequence: UInt64? = nil,
            deliver: @escaping @Sendable (UnsafeRawBufferPointer, _ pending: UInt64?) -> Void
        ) throws(NATSHistoryUnavailable) {
            var context: OpaquePointer?
            let created = natsConnection_JetStream(&context, connection.handle, nil)
            guard created == NATS_OK, let context else {
                throw NATSHistoryUnavailable("no JetStream context: \(NATSConnection.text(created))")
            }
            let receiver = NATSMessageReceiver(deliver: deliver)
            let reference = Unmanaged.passRetained(receiver)
            var subscription: OpaquePointer?
            var errorCode = jsErrCode(0)
            var subscribeOptions = jsSubOptions()
            jsSubOptions_Init(&subscribeOptions)
            subscribeOptions.Ordered = true
            // A start before 1970 (a --since longer than that) asks for all the stream kept; a
            // start as far ahead as a year past 2255 would not fit the nanoseconds nats.c takes.
            if let sequence {
                subscribeOptions.Config.DeliverPolicy = js_DeliverByStartSequence
                subscribeOptions.Config.OptStartSeq = sequence + 1
            } else if startTime > 0 {
                subscribeOptions.Config.DeliverPolicy = js_DeliverByStartTime
                subscribeOptions.Config.OptStartTime = Int64(min(startTime, Self.latestStartTime) * 1e9)
            } else {
                subscribeOptions.Config.DeliverPolicy = js_DeliverAll
            }
            let status = js_Subscribe(
                &subscription, context, subject,
                { _, _, message, closure in
                    var metadata: UnsafeMutablePointer<jsMsgMetaData>?
                    var pending: UInt64?
                    let receiver = NATSMessageReceiver.from(closure)
                    if natsMsg_GetMetaData(&metadata, message) == NATS_OK, let metadata {
                        pending = metadata.pointee.NumPending
                        receiver.lastStreamSequence.store(
                            metadata.pointee.Sequence.Stream, ordering: .relaxed)
                        jsMsgMetaData_Destroy(metadata)
                    }
                    receiver.receive(message!, pending: pending)
                }, reference.toOpaque(), nil, &subscribeOptions, &errorCode)
            guard status == NATS_OK, let subscription else {
                reference.release()
                jsCtx_Destroy(context)
                throw NATSHistoryUnavailable(
                    Self.explain(status: status, errorCode: errorCode, subject: subject))
            }
            // History comes as fast as the server sends it, while the monitor drains its hold a
            // frame at a time: with nats.c's default limit (65,536 messages) a replay of a few
            // hundred thousand dropped a fifth of them, which an ordered consumer does not
            // fetch again. Bounded by bytes instead (``pendingBytes``).
            natsSubscription_SetPendingLimits(subscription, -1, Self.pendingBytes)
            // Without a completion callback there is no safe moment to release the receiver; it
            // then stays alive for good (a few bytes, on a path never seen).
            _ = NATSMessageReceiver.releaseOnCompletion(of: subscription, reference)
            var empty = false
            var info: UnsafeMutablePointer<jsConsumerInfo>?
            if natsSubscription_GetConsumerInfo(&info, subscription, nil, nil) == NATS_OK, let info {
                empty = info.pointee.NumPending == 0 && info.pointee.Delivered.Consumer == 0
                jsConsumerInfo_Destroy(info)
            }
            self.context = context
            self.subscription = subscription
            self.receiver = receiver
            wasEmptyAtStart = empty
        }

        deinit {
            cancel()
        }

        /// Stops the replay; returns once the handler will not run again (or after five seconds).
        /// Calling it again does nothing.
        package func cancel() {
            guard !cancelled else { return }
            cancelled = true
            natsSubscription_Unsubscribe(subscription)
            _ = receiver.completed.wait(timeout: .now() + 5)
            natsSubscription_Destroy(subscription)
            jsCtx_Destroy(context)
        }

        /// Why a replay could not start, for people.
        private static func explain(status: natsStatus, errorCode: jsErrCode, subject: String) -> String {
            let noStream =
                "no JetStream stream keeps \(subject) on this server (bridges make one when given a "
                + "stream, such as simapp --stream)"
            let noJetStream = "JetStream is not enabled on this server (nats-server -js)"
            switch errorCode {
            case JSStreamNotFoundErr: return noStream
            case JSNotEnabledErr, JSNotEnabledForAccountErr: return noJetStream
            default:
                let text = NATSConnection.text(status)
                if status == NATS_NOT_FOUND || text.lowercased().contains("no stream") {
                    return noStream
                }
                if status == NATS_NO_RESPONDERS { return noJetStream }
                return "the history cannot be replayed: \(text)"
                    + (errorCode.rawValue != 0 ? " (JetStream error \(errorCode.rawValue))" : "")
            }
        }
    }

    /// Why a ``NATSHistoryReplay`` could not start, in words for people.
    package struct NATSHistoryUnavailable: Error, Sendable, Hashable, CustomStringConvertible {
        /// The reason.
        package let description: String

        init(_ description: String) {
            self.description = description
        }
    }
#endif
