internal import EventBus

/// The simulated app's services, each publishing its own events from its own `publish` call, so
/// that a monitor's call sites read as a real app's would.
enum AppTraffic {
    /// Publishes `event` from the service that owns its type.
    static func publish(_ event: any Event, on bus: EventBus) {
        switch event {
        case let event as UserLoggedInEvent: AuthService.signedIn(event, on: bus)
        case let event as UserLoggedOutEvent: AuthService.signedOut(event, on: bus)
        case let event as SessionExpiredEvent: AuthService.expired(event, on: bus)
        case let event as DataLoadedEvent: DataService.loaded(event, on: bus)
        case let event as DataLoadFailedEvent: DataService.failed(event, on: bus)
        case let event as NetworkStatusChangedEvent: Reachability.changed(event, on: bus)
        case let event as ScreenViewedEvent: Navigator.viewed(event, on: bus)
        default: bus.publish(event)
        }
    }
}

/// Signs users in and out.
enum AuthService {
    static func signedIn(_ event: UserLoggedInEvent, on bus: EventBus) {
        bus.publish(event)
    }

    static func signedOut(_ event: UserLoggedOutEvent, on bus: EventBus) {
        bus.publish(event)
    }

    static func expired(_ event: SessionExpiredEvent, on bus: EventBus) {
        bus.publish(event)
    }
}

/// Loads the app's resources.
enum DataService {
    static func loaded(_ event: DataLoadedEvent, on bus: EventBus) {
        bus.publish(event)
    }

    static func failed(_ event: DataLoadFailedEvent, on bus: EventBus) {
        bus.publish(event)
    }
}

/// Watches the network; its status is sticky, so a screen that opens later learns it at once.
enum Reachability {
    static func changed(_ event: NetworkStatusChangedEvent, on bus: EventBus) {
        bus.publishSticky(event)
    }
}

/// Tells analytics which screen is shown.
enum Navigator {
    static func viewed(_ event: ScreenViewedEvent, on bus: EventBus) {
        bus.publish(event)
    }
}
