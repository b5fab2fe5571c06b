#if NATS
    import CNATS
    import Foundation

    /// A plain nats.c connection, to see what a bridge sends and to send what a bridge would not:
    /// synchronous subscriptions only, so the test needs no callbacks.
    final class RawNATSClient {
        struct Failure: Error, CustomStringConvertible {
            var description: String
        }

        /// A message as received.
        struct Message {
            var subject: String
            var data: Data

            /// The message parsed as a JSON object.
            var json: [String: Any]? {
                (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
            }
        }

        private let connection: OpaquePointer
        private var subscriptions: [OpaquePointer] = []

        init(url: String) throws {
            var connection: OpaquePointer?
            let status = natsConnection_ConnectTo(&connection, url)
            guard status == NATS_OK, let connection else {
                throw Failure(
                    description: "cannot connect to \(url): \(String(cString: natsStatus_GetText(status)))")
            }
            self.connection = connection
        }

        deinit {
            for subscription in subscriptions { natsSubscription_Destroy(subscription) }
            natsConnection_Destroy(connection)
        }

        /// Subscribes to `subject` and waits until the server has the subscription.
        func subscribe(_ subject: String) throws -> Int {
            var subscription: OpaquePointer?
            let status = natsConnection_SubscribeSync(&subscription, connection, subject)
            guard status == NATS_OK, let subscription else {
                throw Failure(description: "subscribe \(subject)")
            }
            subscriptions.append(subscription)
            natsConnection_Flush(connection)
            return subscriptions.count - 1
        }

        /// The next message of subscription `index`, or `nil` after `timeout` seconds.
        func next(_ index: Int = 0, timeout: Double = 5) -> Message? {
            var message: OpaquePointer?
            guard natsSubscription_NextMsg(&message, subscriptions[index], Int64(timeout * 1000)) == NATS_OK,
                let message
            else { return nil }
            defer { natsMsg_Destroy(message) }
            let subject = String(cString: natsMsg_GetSubject(message))
            let length = Int(natsMsg_GetDataLength(message))
            let data = natsMsg_GetData(message).map { Data(bytes: $0, count: length) } ?? Data()
            return Message(subject: subject, data: data)
        }

        /// Publishes `bytes` on `subject` and waits until the server has them.
        func publish(_ subject: String, _ text: String) {
            let bytes = Array(text.utf8)
            natsConnection_Publish(connection, subject, bytes, Int32(bytes.count))
            natsConnection_Flush(connection)
        }

        /// The number of messages the JetStream stream `name` holds, or `nil` if there is none.
        func streamMessageCount(_ name: String) -> Int? {
            var context: OpaquePointer?
            guard natsConnection_JetStream(&context, connection, nil) == NATS_OK, let context else {
                return nil
            }
            defer { jsCtx_Destroy(context) }
            var info: UnsafeMutablePointer<jsStreamInfo>?
            guard js_GetStreamInfo(&info, context, name, nil, nil) == NATS_OK, let info else { return nil }
            defer { jsStreamInfo_Destroy(info) }
            return Int(info.pointee.State.Msgs)
        }
    }
#endif
