package import NATSClient

#if NATS

    /// The NATS client's connection, spoken in the bridge's public terms: its options, states
    /// and errors.
    extension NATSConnection {
        /// Connects as `options` say, or starts trying to.
        package static func connect(
            url: String, name: String, options: NATSBridgeOptions, events: ConnectionEvents
        ) throws(NATSBridgeError) -> NATSConnection {
            do throws(NATSClientError) {
                return try NATSConnection(
                    url: url, name: name, options: options.connectionOptions, events: events)
            } catch {
                throw NATSBridgeError(error)
            }
        }

        /// Subscribes `deliver` to `subject` (see
        /// ``NATSConnection/subscribe(_:shedding:deliver:)``).
        package func subscribeForBridge(
            _ subject: String, shedding: NATSShedding? = nil,
            deliver: @escaping @Sendable (UnsafeRawBufferPointer) -> Void
        ) throws(NATSBridgeError) -> NATSSubscription {
            do throws(NATSClientError) {
                return try subscribe(subject, shedding: shedding, deliver: deliver)
            } catch {
                throw NATSBridgeError(error)
            }
        }

        /// Makes sure `stream` captures every bridge's subjects, `eventbus.>`.
        func ensureStream(_ stream: NATSStreamOptions) throws(NATSBridgeError) {
            do throws(NATSClientError) {
                try ensureStream(
                    name: stream.name, subject: NATSSubject.root + ".>", maximumAge: stream.maximumAge,
                    maximumBytes: stream.maximumBytes)
            } catch {
                throw NATSBridgeError(error)
            }
        }

        /// Where the connection stands, as a bridge reports it.
        package var bridgeState: NATSBridgeState { NATSBridgeState(events.state) }
    }
#endif

extension NATSBridgeOptions {
    /// What nats.c itself reads of these options.
    package var connectionOptions: NATSConnectionOptions {
        NATSConnectionOptions(
            connectTimeout: connectTimeout, maximumReconnects: maximumReconnects,
            reconnectDelay: reconnectDelay, keepTryingWhenUnreachable: whenUnreachable == .keepTrying)
    }
}

extension NATSBridgeState {
    /// The bridge's name for a connection's state.
    package init(_ state: NATSConnectionState) {
        switch state {
        case .connected: self = .connected
        case .reconnecting: self = .reconnecting
        case .disconnected: self = .disconnected
        case .closed: self = .closed
        }
    }
}

extension NATSBridgeError {
    /// The bridge's words for what the NATS client refused.
    package init(_ error: NATSClientError) {
        switch error {
        case .invalidURL(let url, let reason): self = .invalidURL(url, reason: reason)
        case .unreachable(let url, let detail): self = .unreachable(url: url, detail: detail)
        case .streamFailed(let name, let detail): self = .streamFailed(name: name, detail: detail)
        case .client(let operation, let detail): self = .client(operation: operation, detail: detail)
        }
    }
}
