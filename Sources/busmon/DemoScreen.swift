import Dashboard

// A stand-in screen for exercising the terminal front end until the dashboard's controller is
// wired in; this whole file is deleted then (see `Busmon.makeScreen`).

/// How the dashboard draws: the same shape as the dashboard module's type of this name.
struct DashboardOptions: Sendable, Equatable {
    /// Draw with ASCII only.
    var ascii: Bool
    /// Use colours.
    var color: Bool

    init(ascii: Bool = false, color: Bool = true) {
        self.ascii = ascii
        self.color = color
    }
}

/// Draws a frame with the screen size, the last key and a frame count.
final class DemoScreen: Screen {
    static let minimumWidth = 60
    static let minimumHeight = 16

    private let options: DashboardOptions
    private let title: String
    private var lastKey = "none"
    private var updates = 0

    init(options: DashboardOptions, title: String) {
        self.options = options
        self.title = title
    }

    func handle(_ key: DashboardKey) -> Bool {
        switch key {
        case .character("q"), .interrupt: return false
        case .character(let character): lastKey = String(character)
        default: lastKey = String(describing: key)
        }
        return true
    }

    func update(now: Double) {
        updates += 1
    }

    func render(into grid: inout CellGrid, now: Double) {
        let width = grid.width
        let height = grid.height
        guard width >= Self.minimumWidth, height >= Self.minimumHeight else {
            grid.put("terminal too small: \(width)x\(height)", x: 0, y: 0, style: CellStyle(bold: true))
            grid.put("need \(Self.minimumWidth)x\(Self.minimumHeight), q quits", x: 0, y: 1)
            return
        }
        let (horizontal, vertical, corners): (Character, Character, [Character]) =
            options.ascii ? ("-", "|", ["+", "+", "+", "+"]) : ("─", "│", ["┌", "┐", "└", "┘"])
        for x in 1..<(width - 1) {
            grid[x, 0] = Cell(horizontal)
            grid[x, height - 1] = Cell(horizontal)
        }
        for y in 1..<(height - 1) {
            grid[0, y] = Cell(vertical)
            grid[width - 1, y] = Cell(vertical)
        }
        grid[0, 0] = Cell(corners[0])
        grid[width - 1, 0] = Cell(corners[1])
        grid[0, height - 1] = Cell(corners[2])
        grid[width - 1, height - 1] = Cell(corners[3])

        let accent = options.color ? CellStyle.Color.cyan : nil
        grid.put(" busmon demo screen ", x: 2, y: 0, style: CellStyle(bold: true, color: accent))
        let lines = [
            "source: \(title)",
            "size: \(width)x\(height)",
            "last key: \(lastKey)",
            "updates: \(updates)",
            "charset: \(options.ascii ? "ascii" : "unicode")  color: \(options.color ? "on" : "off")",
        ]
        for (index, line) in lines.enumerated() {
            grid.put(line, x: 2, y: 2 + index, maxWidth: width - 4)
        }
        grid.put(" q quit ", x: 2, y: height - 1, style: CellStyle(reverse: true))
    }
}
