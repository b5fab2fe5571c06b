internal import EventBus
internal import ScreenGrid

/// The observer objects: one row per class (live, dead and reclaimed objects, their
/// subscriptions, leak suspects, and a sparkline of live objects), leak suspects in bold red.
/// Enter on a class lists its objects; Enter or Esc goes back to the classes.
struct ObserversPane: DashboardPane {
    let focusTitles = ["Observers"]
    let name = "observers"
    let enterHelp = "a class's objects (Enter or Esc goes back)"
    let columnHelp = [
        KeyHint(
            keys: "Observers",
            text: "per observer class: LIVE objects, DEAD ones (deallocated, subscriptions not yet "
                + "reclaimed), RECLAIMED ones (gone with all their subscriptions), SUBS of the live ones"),
        KeyHint(
            keys: "LEAKS, red",
            text: "objects still alive after the time the app gave them (expectDeallocation)"),
        KeyHint(keys: "objects, grey", text: "reclaimed or unsubscribed in the last 3 s"),
    ]

    /// The selected class, by name, so that it stays put when classes come and go.
    private(set) var classSelection = ListSelection<String>()
    /// The class whose objects the pane lists instead of the classes, if any.
    private(set) var openClass: String?
    /// The selected object of the open class, by serial, so that it stays put while rows come
    /// and go.
    private(set) var objectSelection = ListSelection<UInt64>()
    /// The classes in view in the last frame.
    private(set) var classesInView = ListViewport(rows: 0..<0, selected: nil)
    /// The open class's objects as the last frame listed them.
    private(set) var objectsInView: ObjectsView?

    /// The classes' names, in the pane's order.
    private static func classes(in state: DashboardState) -> [String] {
        state.observers.classes.map(\.className)
    }

    /// The open class's objects' serials at `now`, in the pane's order.
    private func objects(in context: PaneContext) -> [UInt64] {
        guard let openClass else { return [] }
        return context.state.observers.instances(of: openClass, at: context.now).map(\.observerID)
    }

    /// A title rule and a line saying so when there is no observer data; else a title rule, a
    /// row of column titles, and a quarter of the screen's rows less every title and the bar (at
    /// least 2), whatever the number of classes, so that a class's objects have room when Enter
    /// lists them and the other panes do not move. Beside a Fleet pane the quarter is shared:
    /// the fleet's app rows come out of it (the 2 rows stay), so the log keeps its room.
    func height(screenHeight: Int, state: DashboardState) -> Int? {
        guard state.observers.hasData else { return 2 }
        let fleetRows = FleetPane.appRows(screenHeight: screenHeight, state: state) ?? 0
        return 2 + max(2, (screenHeight - 5) * 25 / 100 - fleetRows)
    }

    func contentRows(in area: Rect) -> Int { max(0, area.height - 2) }

    /// What ``draw(into:area:canvas:focusedPart:)`` reads: the tracker's classes and the
    /// histories of their sparklines, which move with the source's clock a second at a time,
    /// and what the pane laid out.
    private struct DrawingInputs: Equatable {
        let hasData: Bool
        let hasSnapshot: Bool
        let classes: [ObserverStatistics]
        let suspects: Int
        let histories: [String: GaugeHistory]
        let second: Int?
        let classesInView: ListViewport
        let objectsInView: ObjectsView?
        let options: DashboardOptions
        let glyphs: Glyphs
    }

    func drawingInputs(canvas: PaneCanvas) -> PaneInputs? {
        let tracker = canvas.state.observers
        let now = canvas.state.sourceTime(at: canvas.now)
        return PaneInputs(
            DrawingInputs(
                hasData: tracker.hasData, hasSnapshot: tracker.hasSnapshot, classes: tracker.classes,
                suspects: tracker.suspectCount, histories: tracker.histories,
                second: now.isFinite ? Int(now.rounded(.down)) : nil, classesInView: classesInView,
                objectsInView: objectsInView, options: canvas.options, glyphs: canvas.glyphs))
    }

    mutating func layOut(rows: Int, in context: PaneContext) {
        classesInView = classSelection.viewport(height: rows, of: Self.classes(in: context.state))
        guard let openClass else {
            objectsInView = nil
            return
        }
        let all = context.state.observers.instances(of: openClass, at: context.now)
        // When the selected object has gone from the list, the one now in its place is selected.
        let objects = objectSelection.viewport(height: rows, of: all.map(\.observerID))
        objectsInView = ObjectsView(
            className: openClass, all: all, rows: objects.rows, selected: objects.selected)
    }

    mutating func move(by delta: Int, rows: Int, in context: PaneContext) {
        if openClass != nil {
            objectSelection.move(by: delta, of: objects(in: context))
        } else {
            classSelection.move(by: delta, of: Self.classes(in: context.state))
        }
    }

    mutating func moveToFirst(in context: PaneContext) {
        move(by: Int.min / 2, rows: 0, in: context)
    }

    mutating func moveToLast(in context: PaneContext) {
        move(by: Int.max / 2, rows: 0, in: context)
    }

    mutating func open(in context: PaneContext) -> PaneEffect? {
        if openClass != nil {
            openClass = nil
            return nil
        }
        let classes = context.state.observers.classes
        guard !classes.isEmpty else { return nil }
        openClass = classes[min(classSelection.index, classes.count - 1)].className
        objectSelection.reset()
        return nil
    }

    mutating func goBack() -> Bool {
        guard openClass != nil else { return false }
        openClass = nil
        return true
    }

    /// Shows the classes with the first leak suspect's class selected, or, when `next` (the
    /// person asked again while the classes were shown), the suspect's class after the selected
    /// one.
    mutating func selectSuspect(next: Bool, in context: PaneContext) {
        openClass = nil
        let suspects = context.state.observers.suspectClasses
        guard let first = suspects.first else { return }
        var chosen = first
        if next, let current = classSelection.selected, let index = suspects.firstIndex(of: current) {
            chosen = suspects[(index + 1) % suspects.count]
        }
        classSelection.select(chosen, of: Self.classes(in: context.state))
    }
}

/// Column widths of the Observers pane for one screen width.
struct ObserverColumns: Equatable {
    let name: Int
    let live: Int
    let dead: Int
    let reclaimed: Int
    let subscriptions: Int
    let leaks: Int
    /// The sparkline of live objects, after the numbers.
    let spark: Int

    init(width: Int) {
        name = width >= 100 ? 26 : width >= 80 ? 24 : 20
        live = 6
        dead = 6
        // RECLAIMED in full where it fits, RECL on narrow screens.
        reclaimed = width >= 90 ? 10 : 6
        subscriptions = 6
        leaks = 6
        spark = max(1, min(60, width - name - live - dead - reclaimed - subscriptions - leaks - 2))
    }

    /// Where the sparkline starts.
    var sparkX: Int { name + live + dead + reclaimed + subscriptions + leaks + 1 }
}

/// The objects of one class, as one frame lists them.
struct ObjectsView: Equatable {
    let className: String
    /// Every object listed, in order.
    let all: [InstanceRow]
    /// Indexes of `all` in view.
    let rows: Range<Int>
    /// The selected object's index.
    let selected: Int?
}

extension ObserversPane {
    /// Draws the Observers pane into `area`: the classes, or the open class's objects.
    func draw(into grid: inout CellGrid, area: Rect, canvas: PaneCanvas, focusedPart: Int?) {
        let focused = focusedPart != nil
        guard area.height > 0 else { return }
        let title = focusTitles[0]
        let tracker = canvas.state.observers
        guard tracker.hasData else {
            canvas.drawRule(&grid, y: area.y, from: 0, to: grid.width, title: title, focused: focused)
            let text =
                tracker.hasSnapshot
                ? "no observer objects seen" : "no observer data: no snapshot has come from this source"
            grid.put(text, x: 1, y: area.y + 1, style: canvas.style(dim: true), maxWidth: grid.width - 1)
            return
        }
        if let objects = objectsInView {
            drawObjects(&grid, canvas: canvas, area: area, objects: objects, title: title, focused: focused)
        } else {
            drawClasses(
                &grid, canvas: canvas, area: area, classes: classesInView, title: title, focused: focused)
        }
    }

    private func drawClasses(
        _ grid: inout CellGrid, canvas: PaneCanvas, area: Rect, classes: ListViewport, title: String,
        focused: Bool
    ) {
        let tracker = canvas.state.observers
        let columns = ObserverColumns(width: grid.width)
        canvas.drawRule(&grid, y: area.y, from: 0, to: grid.width, title: title, focused: focused)
        let classCount = tracker.classes.count
        var note = "\(classCount) \(classCount == 1 ? "class" : "classes")"
        let suspects = tracker.suspectCount
        if suspects > 0 {
            note += ", \(suspects) leak \(suspects == 1 ? "suspect" : "suspects")"
        }
        canvas.putRuleNote(
            &grid, note, y: area.y, after: title, style: suspects > 0 ? canvas.warningStyle : canvas.style())

        let y = area.y + 1
        let headerStyle = canvas.style(bold: true)
        var x = 0
        grid.put("CLASS", x: x, y: y, style: headerStyle)
        x += columns.name
        let titles = [
            ("LIVE", columns.live), ("DEAD", columns.dead),
            (columns.reclaimed >= 10 ? "RECLAIMED" : "RECL", columns.reclaimed),
            ("SUBS", columns.subscriptions), ("LEAKS", columns.leaks),
        ]
        for (text, width) in titles {
            grid.put(TextFormat.right(text, width: width), x: x, y: y, style: headerStyle)
            x += width
        }
        let sparkTitle =
            columns.spark >= 14 ? "LIVE, LAST \(columns.spark)s" : columns.spark >= 4 ? "LIVE" : ""
        grid.put(sparkTitle, x: columns.sparkX, y: y, style: headerStyle, maxWidth: columns.spark)

        let sourceNow = canvas.state.sourceTime(at: canvas.now)
        for (offset, index) in classes.rows.enumerated() {
            let row = tracker.classes[index]
            let rowY = area.y + 2 + offset
            let isSuspect = row.leakSuspects > 0
            // A class with a suspect is in bold red from end to end, so it is found at a glance.
            let base = isSuspect ? canvas.warningStyle : canvas.style()
            grid.put(
                TextFormat.truncate(row.className, width: columns.name - 1, ellipsis: canvas.glyphs.ellipsis),
                x: 0,
                y: rowY, style: isSuspect ? base : canvas.style(bold: true))
            x = columns.name
            let cells: [(Int, Int, CellStyle)] = [
                (row.liveInstances, columns.live, isSuspect ? base : canvas.style(bold: true)),
                (
                    row.deadInstances, columns.dead,
                    row.deadInstances > 0
                        ? canvas.style(bold: true, color: .yellow)
                        : isSuspect ? base : canvas.style(dim: true)
                ),
                (row.reclaimedInstances, columns.reclaimed, base),
                (row.liveSubscriptions, columns.subscriptions, base),
                (row.leakSuspects, columns.leaks, isSuspect ? base : canvas.style(dim: true)),
            ]
            for (value, width, cellStyle) in cells {
                grid.put(
                    TextFormat.right(TextFormat.count(value, width: width - 1), width: width), x: x, y: rowY,
                    style: cellStyle)
                x += width
            }
            let history = tracker.histories[row.className]?.history(seconds: columns.spark, at: sourceNow)
            grid.put(
                canvas.glyphs.sparkline(history ?? []), x: columns.sparkX, y: rowY,
                style: isSuspect ? base : canvas.style(color: .cyan))
            if index == classes.selected, focused {
                grid.highlight(x: 0, y: rowY, count: grid.width)
            }
        }
    }

    /// Object columns: serial, age, subscriptions, state, then what it is subscribed to (for a
    /// suspect: how long overdue, why it should have gone, and what it still hears).
    private static let objectWidths = (serial: 9, age: 9, subscriptions: 6, state: 14)

    private func drawObjects(
        _ grid: inout CellGrid, canvas: PaneCanvas, area: Rect, objects: ObjectsView, title: String,
        focused: Bool
    ) {
        let separator = canvas.options.ascii ? " > " : " › "
        let fullTitle = title + separator + objects.className
        canvas.drawRule(&grid, y: area.y, from: 0, to: grid.width, title: fullTitle, focused: focused)
        // Counts from the class's statistics when there are any: a source may list only some
        // objects, or none.
        let statistics = canvas.state.observers.classes.first { $0.className == objects.className }
        let listed = objects.all.filter { !$0.isGone }.count
        let suspects = statistics?.leakSuspects ?? objects.all.filter { $0.status == .suspect }.count
        let live = statistics?.liveInstances ?? objects.all.filter { $0.status != .dead && !$0.isGone }.count
        let dead = statistics?.deadInstances ?? objects.all.filter { $0.status == .dead }.count
        let gone = objects.all.count - listed
        var counts: [String] = []
        if suspects > 0 { counts.append("\(suspects) leak \(suspects == 1 ? "suspect" : "suspects")") }
        counts.append("\(live) live")
        if dead > 0 { counts.append("\(dead) dead") }
        if gone > 0 { counts.append("\(gone) gone") }
        if listed < live.clampedAdding(dead) { counts.append("\(listed) listed") }
        let note = counts.joined(separator: ", ") + "; Enter/Esc back"
        canvas.putRuleNote(
            &grid, note, y: area.y, after: fullTitle,
            style: suspects > 0 ? canvas.warningStyle : canvas.style())

        let widths = Self.objectWidths
        let headerY = area.y + 1
        let headerStyle = canvas.style(bold: true)
        var x = 0
        grid.put("OBJECT", x: x, y: headerY, style: headerStyle)
        x += widths.serial
        grid.put(TextFormat.right("AGE", width: widths.age - 1), x: x, y: headerY, style: headerStyle)
        x += widths.age
        grid.put(
            TextFormat.right("SUBS", width: widths.subscriptions - 1), x: x, y: headerY, style: headerStyle)
        x += widths.subscriptions
        grid.put("STATE", x: x, y: headerY, style: headerStyle)
        x += widths.state
        grid.put("SUBSCRIBED TO", x: x, y: headerY, style: headerStyle, maxWidth: grid.width - x)

        for (offset, index) in objects.rows.enumerated() {
            let object = objects.all[index]
            let y = area.y + 2 + offset
            let (stateText, rowStyle) = objectState(object, canvas: canvas)
            x = 0
            grid.put("#\(object.observerID)", x: x, y: y, style: rowStyle, maxWidth: widths.serial - 1)
            x += widths.serial
            let age = object.age.map(TextFormat.elapsed) ?? "?"
            grid.put(TextFormat.right(age, width: widths.age - 1), x: x, y: y, style: rowStyle)
            x += widths.age
            grid.put(
                TextFormat.right(String(object.subscriptions.count), width: widths.subscriptions - 1), x: x,
                y: y,
                style: rowStyle)
            x += widths.subscriptions
            grid.put(stateText, x: x, y: y, style: rowStyle, maxWidth: widths.state - 1)
            x += widths.state
            var detail = object.subscriptions.joined(separator: ", ")
            if object.status == .suspect {
                let overdue = object.overdue.map { "overdue " + TextFormat.elapsed($0) } ?? "overdue"
                let reason = object.reason.map { $0.isEmpty ? "" : " after \"\($0)\"" } ?? ""
                detail = overdue + reason + (detail.isEmpty ? "" : "; " + detail)
            }
            grid.put(
                TextFormat.truncate(detail, width: grid.width - x, ellipsis: canvas.glyphs.ellipsis), x: x,
                y: y,
                style: rowStyle)
            if index == objects.selected, focused {
                grid.highlight(x: 0, y: y, count: grid.width)
            }
        }
        if objects.all.isEmpty {
            let statistics = canvas.state.observers.classes.first { $0.className == objects.className }
            let text =
                !(statistics.map { $0.liveInstances > 0 || $0.deadInstances > 0 } ?? false)
                ? "no objects of this class are alive" : "this source lists no objects, only their counts"
            grid.put(text, x: 1, y: area.y + 2, style: canvas.style(dim: true), maxWidth: grid.width - 1)
        }
    }

    /// An object's state as the STATE column writes it, and the style of its row: a suspect in
    /// bold red, a dead one in yellow, a gone one greyed.
    private func objectState(_ object: InstanceRow, canvas: PaneCanvas) -> (String, CellStyle) {
        switch object.status {
        case .live: return ("live", canvas.style())
        case .dead: return ("dead", canvas.style(bold: true, color: .yellow))
        case .suspect: return ("leak suspect", canvas.warningStyle)
        case .gone(let label, _): return (label, canvas.style(dim: true))
        }
    }
}
