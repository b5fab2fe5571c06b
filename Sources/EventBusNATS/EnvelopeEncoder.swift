#if NATS
    import BusWire
    import EventBus
    import Foundation

    /// Who sent a message: the fields every envelope carries besides the event.
    struct EnvelopeSender: Sendable {
        var app: String
        var host: String
        var pid: Int
        /// A random identifier of one bridge, so that it can tell its own messages.
        var origin: String
    }

    /// Turns queued events into envelopes (docs/nats-bridge.md), on the bridge thread only.
    ///
    /// An envelope is a wire-format `event` record (docs/wire-format.md) with the sender's app,
    /// host, pid and bridge origin added, so that tools reading taps read it as it is. The subject
    /// of each type, and whether it is `Encodable`, are worked out once per type.
    struct EnvelopeEncoder {
        enum Outcome {
            case encoded
            /// Not `Encodable`: not bridged.
            case skipped
            /// `Encodable`, but its encoding threw.
            case failed
        }

        private let subjectPrefix: String
        /// `,"app":…,"host":…,"pid":…,"origin":…`, the same in every envelope.
        private let senderFields: [UInt8]
        /// The type name (as the bus gives it: `String(describing:)`) and subject of each event
        /// type met so far.
        private var types: [ObjectIdentifier: (name: String, subject: [CChar])] = [:]
        /// Types the fast encoder gave up on once; they take the `JSONEncoder` path from then on.
        private var slowTypes: Set<ObjectIdentifier> = []
        private let fallback: JSONEncoder = {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return encoder
        }()
        /// The last envelope encoded.
        private(set) var writer = JSONLineWriter(reservingCapacity: 1024)

        init(sender: EnvelopeSender) {
            subjectPrefix = NATSSubject.root + "." + NATSSubject.token(for: sender.app) + "."
            var fields = JSONLineWriter()
            fields.beginRecord("x")
            fields.field("app", sender.app)
            fields.field("host", sender.host)
            fields.field("pid", sender.pid)
            fields.field("origin", sender.origin)
            // Everything after `{"kind":"x"`: the fields, each led by its comma.
            senderFields = Array(fields.bytes.dropFirst(#"{"kind":"x""#.utf8.count))
        }

        /// The type name and subject of `pending`'s event, the subject as a C string.
        mutating func type(of pending: borrowing Outbox.Pending) -> (name: String, subject: [CChar]) {
            let type = ObjectIdentifier(Swift.type(of: pending.event))
            if let known = types[type] { return known }
            let name = String(describing: Swift.type(of: pending.event))
            let subject = Array((subjectPrefix + NATSSubject.token(for: name)).utf8CString)
            types[type] = (name, subject)
            return (name, subject)
        }

        /// Writes the envelope of `pending` into ``writer``.
        mutating func encode(_ pending: borrowing Outbox.Pending, typeName: String) -> Outcome {
            guard let encodable = pending.event as? any Encodable else { return .skipped }
            writer.bytes.removeAll(keepingCapacity: true)
            writer.beginRecord("event")
            writer.field("seq", pending.sequence)
            writer.field("time", pending.time)
            writer.field("typeName", typeName)
            writer.field("receivers", pending.receivers)
            writer.bytes.append(contentsOf: senderFields)
            writer.key("payload")
            let type = ObjectIdentifier(Swift.type(of: pending.event))
            if !slowTypes.contains(type) {
                let start = writer.bytes.count
                do throws(PayloadEncoder.Unsupported) {
                    try PayloadEncoder.write(encodable, into: &writer)
                    writer.endRecord()
                    return .encoded
                } catch {
                    writer.bytes.removeSubrange(start...)
                    slowTypes.insert(type)
                }
            }
            guard let data = try? fallback.encode(encodable) else { return .failed }
            writer.bytes.append(contentsOf: data)
            writer.endRecord()
            return .encoded
        }
    }
#endif
