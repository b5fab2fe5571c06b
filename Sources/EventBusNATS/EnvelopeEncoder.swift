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
    /// An envelope is a wire-format `event` record (docs/wire-format.md), its trace included
    /// (event number, cause, call site), with the sender's app, host, pid and bridge origin
    /// added, so that tools reading taps read it as it is. Everything
    /// in it but the sequence number, time, receivers and payload is the same for every event of
    /// a type, so it is written once per type (and the sender's fields once per bridge) and
    /// copied into each envelope; the payload goes through BusWire's ``PayloadEncoder``, whose
    /// buffers are kept from one event to the next.
    struct EnvelopeEncoder {
        enum Outcome {
            case encoded
            /// Not `Encodable`: not bridged.
            case skipped
            /// `Encodable`, but its encoding threw.
            case failed
        }

        /// What is known of one event type; a class, so that looking it up for each event costs
        /// one reference count rather than one per field.
        final class TypeInfo {
            /// The type's name as the bus gives it (`String(describing:)`).
            let name: String
            /// Its subject, as a C string.
            let subject: [CChar]
            /// `,"typeName":"<name>","receivers":`, the bytes between the time and receivers.
            let typeFields: [UInt8]
            /// How its events encode; `nil` when it is not `Encodable`.
            let encoding: EncodableEventType?
            /// Set once the fast encoder gave up on the type: it takes the `JSONEncoder` path.
            var slow = false

            init(name: String, subject: [CChar], typeFields: [UInt8], encoding: EncodableEventType?) {
                self.name = name
                self.subject = subject
                self.typeFields = typeFields
                self.encoding = encoding
            }
        }

        private let subjectPrefix: String
        /// `,"app":…,"host":…,"pid":…,"origin":…,"payload":`, the same in every envelope.
        private let senderFields: [UInt8]
        private static let recordStart = Array(#"{"kind":"event","seq":"#.utf8)
        private static let timeKey = Array(#","time":"#.utf8)
        /// Each event type met so far.
        private var types: [ObjectIdentifier: TypeInfo] = [:]
        // Bridged events are data for the other apps, which decode them: every field goes out. A
        // fleet monitor redacts what it shows (NATSFleetSource).
        private let payloadEncoder = PayloadEncoder(redaction: .none)
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
            fields.key("payload")
            // Everything after `{"kind":"x"`: the fields, each led by its comma.
            senderFields = Array(fields.bytes.dropFirst(#"{"kind":"x""#.utf8.count))
        }

        /// What is known of the type of `event`, worked out with its first event.
        mutating func type(of event: any Event) -> TypeInfo {
            let type = ObjectIdentifier(Swift.type(of: event))
            if let known = types[type] { return known }
            let name = String(describing: Swift.type(of: event))
            var fields = JSONLineWriter()
            fields.beginRecord("x")
            fields.field("typeName", name)
            fields.key("receivers")
            let info = TypeInfo(
                name: name, subject: Array((subjectPrefix + NATSSubject.token(for: name)).utf8CString),
                typeFields: Array(fields.bytes.dropFirst(#"{"kind":"x""#.utf8.count)),
                encoding: EncodableEventType(of: event))
            types[type] = info
            return info
        }

        /// Writes the envelope of one event of the type `info` describes into ``writer``.
        mutating func encode(
            _ event: any Event, sequence: Int, time: Double, receivers: Int,
            trace: PublishTrace = PublishTrace(), info: TypeInfo
        ) -> Outcome {
            guard let encoding = info.encoding else { return .skipped }
            writer.bytes.removeAll(keepingCapacity: true)
            writer.bytes.append(contentsOf: Self.recordStart)
            writer.appendInteger(sequence)
            writer.bytes.append(contentsOf: Self.timeKey)
            writer.appendDouble(time)
            writer.bytes.append(contentsOf: info.typeFields)
            writer.appendInteger(receivers)
            // The fields a tap's event record has after its receivers, so that both read alike.
            writer.continueRecord()
            writer.field(trace: trace)
            writer.bytes.append(contentsOf: senderFields)
            if !info.slow {
                do throws(PayloadEncoder.Unsupported) {
                    try encoding.write(event, with: payloadEncoder, into: &writer)
                    writer.endRecord()
                    return .encoded
                } catch {
                    info.slow = true
                }
            }
            guard let encodable = event as? any Encodable, let data = try? fallback.encode(encodable) else {
                return .failed
            }
            writer.bytes.append(contentsOf: data)
            writer.endRecord()
            return .encoded
        }
    }
#endif
