/// How long an app of a fleet may stay silent before a monitor shows it as quiet, then gone.
///
/// Every bridged app publishes a snapshot twice a second, so a few seconds of silence already
/// means something: the app is stuck, cut off, or was killed without closing its bridge. An app
/// whose bridge is closed says so in its last record and is gone at once.
///
/// `busmon` takes the defaults; tests that cannot wait half a minute shorten them with the
/// environment variables `BUSMON_FLEET_QUIET_AFTER` and `BUSMON_FLEET_GONE_AFTER` (seconds).
package struct FleetPresenceTimes: Sendable, Hashable {
    /// Seconds of silence before an app is shown as quiet by default: ten missed snapshots.
    package static let defaultQuietAfter = 5.0
    /// Seconds of silence before an app is taken as gone by default.
    package static let defaultGoneAfter = 30.0

    /// Seconds of silence before an app is shown as quiet.
    package var quietAfter: Double
    /// Seconds of silence before an app is taken as gone; at least ``quietAfter``.
    package var goneAfter: Double

    /// Creates the times; a `goneAfter` below `quietAfter` is raised to it.
    ///
    /// - Parameters:
    ///   - quietAfter: Seconds before quiet.
    ///   - goneAfter: Seconds before gone.
    package init(quietAfter: Double = defaultQuietAfter, goneAfter: Double = defaultGoneAfter) {
        let quiet = quietAfter.isFinite && quietAfter > 0 ? quietAfter : Self.defaultQuietAfter
        self.quietAfter = quiet
        self.goneAfter = goneAfter.isFinite ? max(quiet, goneAfter) : max(quiet, Self.defaultGoneAfter)
    }

    /// The times `BUSMON_FLEET_QUIET_AFTER` and `BUSMON_FLEET_GONE_AFTER` give, the defaults
    /// for those unset or not positive numbers.
    ///
    /// - Parameter environment: The process's environment.
    /// - Returns: The times.
    package static func fromEnvironment(_ environment: [String: String]) -> FleetPresenceTimes {
        func seconds(_ name: String) -> Double? {
            environment[name].flatMap(Double.init).flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
        }
        return FleetPresenceTimes(
            quietAfter: seconds("BUSMON_FLEET_QUIET_AFTER") ?? defaultQuietAfter,
            goneAfter: seconds("BUSMON_FLEET_GONE_AFTER") ?? defaultGoneAfter)
    }
}
