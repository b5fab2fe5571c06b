extension EventTypeStatistics: CustomStringConvertible {
    /// One line, such as
    /// `UserLoggedInEvent: live 2, dead 0, reclaimed 1, published 3, delivered 5, unheard 0`.
    public var description: String {
        "\(typeName): live \(liveSubscribers), dead \(deadSubscribers), reclaimed \(reclaimedSubscribers),"
            + " published \(published), delivered \(delivered), unheard \(unheard)"
    }
}

extension BusSnapshot: CustomStringConvertible {
    /// A small table: one row per event type, then the wildcard observers.
    ///
    /// ```text
    /// bus LoginFlow
    /// TYPE               LIVE  DEAD  RECLAIMED  PUBLISHED  DELIVERED  UNHEARD
    /// DataLoadedEvent       1     0          0          1          1        0
    /// UserLoggedInEvent     0     0          1          4          4        1
    /// * (wildcard)          0     0          0                     0
    /// ```
    public var description: String {
        let header = ["TYPE", "LIVE", "DEAD", "RECLAIMED", "PUBLISHED", "DELIVERED", "UNHEARD"]
        var rows = eventTypes.map { type in
            [
                type.typeName, "\(type.liveSubscribers)", "\(type.deadSubscribers)",
                "\(type.reclaimedSubscribers)", "\(type.published)", "\(type.delivered)", "\(type.unheard)",
            ]
        }
        rows.append([
            "* (wildcard)", "\(wildcardObservers)", "\(deadWildcardObservers)",
            "\(reclaimedWildcardObservers)", "", "\(wildcardDeliveries)", "",
        ])
        let widths = header.indices.map { column in
            ([header] + rows).map { $0[column].count }.max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            // The name is aligned left, the counts right.
            let padded = cells.indices.map { column in
                let padding = String(repeating: " ", count: widths[column] - cells[column].count)
                return column == 0 ? cells[column] + padding : padding + cells[column]
            }
            var text = padded.joined(separator: "  ")
            while text.last == " " { text.removeLast() }
            return text
        }
        return (["bus \(busName)", line(header)] + rows.map(line)).joined(separator: "\n")
    }
}
