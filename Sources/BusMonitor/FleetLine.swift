internal import BusWire

/// A `fleet` line: the members of a fleet with their presence (docs/wire-format.md).
///
/// Headless output writes one every second beside its summary. A recording, and headless output
/// as a recording would, write one whenever a member comes, goes, or changes presence or its
/// link's state, so that a replay shows an app leaving when it left, and not only once its
/// records have been silent long enough to call it gone.
package enum FleetLine {
    /// The line's `kind`.
    static let kind = "fleet"

    /// Writes `members` as a fleet line stamped `time`.
    static func write(_ members: [FleetMember], time: Double, into writer: inout JSONLineWriter) {
        writer.beginRecord("fleet")
        writer.field("time", time)
        writer.beginArray("members")
        for member in members {
            writer.beginObject(nil)
            writer.field(origin: member.origin)
            writer.field("presence", member.presence.rawValue)
            writer.field("lastSeen", member.lastSeen)
            writer.field("events", member.eventsReceived)
            writer.field("bridgeState", member.bridgeState)
            writer.field("bridgeDropped", member.bridgeDropped)
            writer.endObject()
        }
        writer.endArray()
        writer.endRecord()
    }

    /// The time and members of a fleet line, the first ``FleetState/maximumMembers`` of them;
    /// `nil` when `line` is not a well-formed fleet line. A member without an app, host, pid or
    /// a known presence makes the line malformed; counts below 0 read as 0.
    static func decode(_ line: ArraySlice<UInt8>) -> (time: Double, members: [FleetMember])? {
        guard let fields = JSONLineMembers(line, buildingContainersFor: kind), fields.string("kind") == kind,
            let time = fields.double("time"), let objects = fields.objects("members")
        else { return nil }
        var members: [FleetMember] = []
        var listed: Set<EventOrigin> = []
        for object in objects.prefix(FleetState.maximumMembers) {
            guard let app = object.string("app"), let host = object.string("host"),
                let pid = object.integer("pid"), pid >= 0,
                let presence = object.string("presence").flatMap(FleetMember.Presence.init(rawValue:))
            else { return nil }
            // One row an app: a made-up line that lists one twice keeps the first.
            guard listed.insert(EventOrigin(app: app, host: host, pid: pid)).inserted else { continue }
            members.append(
                FleetMember(
                    origin: EventOrigin(app: app, host: host, pid: pid), presence: presence,
                    lastSeen: object.double("lastSeen") ?? time,
                    eventsReceived: max(0, object.integer("events") ?? 0),
                    bridgeState: object.string("bridgeState"),
                    bridgeDropped: max(0, object.integer("bridgeDropped") ?? 0)))
        }
        return (time, members)
    }

    /// What a recording compares to tell whether a fleet changed enough for a line: who is in
    /// it, their presence and their links' states, not what moves with every event or loss (a
    /// link that keeps losing would write a line a batch; its losses have `dropped` lines).
    static func shape(of members: [FleetMember]) -> [FleetShape] {
        members.map { FleetShape(origin: $0.origin, presence: $0.presence, bridgeState: $0.bridgeState) }
    }

    /// One member as ``shape(of:)`` compares it.
    struct FleetShape: Equatable {
        let origin: EventOrigin
        let presence: FleetMember.Presence
        let bridgeState: String?
    }
}
