// The encoder's members the containers in PayloadEncoder+Containers.swift drive are internal
// rather than private: BusWire is their whole world, and the two files are one encoder.

import Foundation

/// Encodes an `Encodable` value as compact JSON with sorted keys: the same text `JSONEncoder` with
/// `[.sortedKeys, .withoutEscapingSlashes]` makes (which is what ``PayloadFormatter`` shows), many
/// times faster.
///
/// Taps and the NATS bridge encode every event they send, where `JSONEncoder` was most of their
/// work. This encoder writes values straight into the caller's line as `encode(to:)` hands them
/// over. The one thing it cannot write at once is an object, whose keys must come out sorted:
/// each member's value goes into the line where it arrives, and when the object is complete its
/// members are put in order in place. An object is complete when the `encode(to:)` that opened
/// it returns, or, for a nested container, when its parent writes its next member; a container
/// written to after that, `superEncoder()`, a single value written twice, or a number JSON cannot
/// hold throws ``Unsupported``, and the caller falls back to `JSONEncoder`.
///
/// One instance keeps its buffers from one value to the next, so that encoding allocates nothing
/// but the containers `Encodable` itself asks for. Not thread-safe: one thread uses an instance
/// at a time.
///
/// ```swift
/// let encoder = PayloadEncoder()
/// var writer = JSONLineWriter()
/// try encoder.write(event, into: &writer)   // {"userId":"42","userName":"Ada"}
/// ```
package final class PayloadEncoder {
    /// Thrown for anything the fast path leaves to `JSONEncoder`.
    package struct Unsupported: Error {
        package init() {}
    }

    // Every stored `var` is touched on every value written; `@exclusivity(unchecked)` spares
    // each access a run-time check (an instance is used by one thread at a time, and no access
    // overlaps another).
    /// The caller's writer while a value is encoded (swapped in, so values land in its bytes).
    @exclusivity(unchecked) var out = JSONLineWriter(reservingCapacity: 0)
    /// The members of every open object, innermost last.
    @exclusivity(unchecked) var members: [Member] = []
    /// The open containers, innermost last.
    @exclusivity(unchecked) var frames: [Frame] = []
    /// Where a completed object is put in order before it replaces its members.
    @exclusivity(unchecked) private var assembly: [UInt8] = []
    /// The members of the object being completed, in key order.
    @exclusivity(unchecked) private var order: [Int] = []
    /// Serial numbers of frames and value slots, so that stale containers are recognized.
    @exclusivity(unchecked) var serial = 0
    /// The value slot whose `encode(to:)` runs now (its encoder may open a container).
    @exclusivity(unchecked) var activeSlot = 0
    /// Set when the value did something the fast path does not reproduce exactly.
    @exclusivity(unchecked) var failed = false

    /// One member of an open object, written `"key":value` into the line: where it starts (at
    /// the key's opening quote) and where the key's closing quote is.
    struct Member {
        var start: Int
        var keyEnd: Int
    }

    /// One open container.
    struct Frame {
        enum Kind { case keyed, unkeyed, single }
        var kind: Kind
        var serial: Int
        /// The value slot whose encoder opened it, or 0 for a nested container.
        var slot: Int
        /// Where its value starts in the line.
        var byteStart: Int
        /// Its first member in ``members`` (keyed).
        var memberStart: Int
        /// Elements written (unkeyed), or values (single).
        var count = 0
        /// Set while a member's or element's own `encode(to:)` runs: writing to this container
        /// then would put a value in the middle of another.
        var busy = false
    }

    /// The fields whose values are written as ``PayloadRedaction/placeholder``.
    package let redaction: PayloadRedaction

    /// Creates an encoder with empty buffers.
    ///
    /// - Parameter redaction: The fields whose values are not written.
    package init(redaction: PayloadRedaction = .default) {
        self.redaction = redaction
    }

    /// Appends the JSON of `value` to `writer`'s bytes; on failure, leaves them as they were.
    package func write<T: Encodable>(_ value: T, into writer: inout JSONLineWriter) throws(Unsupported) {
        try writeRoot(value, into: &writer)
    }

    /// Appends the JSON of `value` to `writer`'s bytes; on failure, leaves them as they were.
    package func write(_ value: any Encodable, into writer: inout JSONLineWriter) throws(Unsupported) {
        try writeRoot(value, into: &writer)
    }

    private func writeRoot<T: Encodable>(_ value: T, into writer: inout JSONLineWriter) throws(Unsupported) {
        swap(&out, &writer)
        let start = out.bytes.count
        defer { swap(&out, &writer) }
        do {
            failed = false
            try encodeValue(value)
            guard !failed else { throw Unsupported() }
        } catch {
            out.bytes.removeSubrange(start...)
            frames.removeAll(keepingCapacity: true)
            members.removeAll(keepingCapacity: true)
            throw Unsupported()
        }
    }

    /// Appends the JSON of `value` to `writer`'s bytes with a new encoder, for one-off uses.
    package static func write(_ value: any Encodable, into writer: inout JSONLineWriter) throws(Unsupported) {
        try PayloadEncoder().write(value, into: &writer)
    }

    // MARK: - Values

    /// Writes `value` at the end of the line: the types `JSONEncoder` treats specially, common
    /// scalars directly, anything else through its own `encode(to:)`. Compares metatypes rather
    /// than casting, since a cast costs more than encoding a small value.
    func encodeValue<T: Encodable>(_ value: T) throws {
        if T.self == String.self {
            out.appendPayloadString(unsafeBitCast(value, to: String.self))
        } else if T.self == Int.self {
            out.appendInteger(unsafeBitCast(value, to: Int.self))
        } else if T.self == Double.self {
            try writeDouble(unsafeBitCast(value, to: Double.self))
        } else if T.self == Bool.self {
            out.appendRaw(unsafeBitCast(value, to: Bool.self) ? "true" : "false")
        } else if T.self == Data.self, let data = value as? Data {
            out.appendPayloadString(data.base64EncodedString())
        } else if T.self == URL.self, let url = value as? URL {
            out.appendPayloadString(url.absoluteString)
        } else if T.self == Decimal.self, let decimal = value as? Decimal {
            out.appendRaw(decimal.description)
        } else {
            serial += 1
            let slot = serial
            let depth = frames.count
            let start = out.bytes.count
            let outer = activeSlot
            activeSlot = slot
            defer { activeSlot = outer }
            do {
                try value.encode(to: StreamEncoder(encoder: self, slot: slot, depth: depth))
            } catch {
                // Even an error the value's own code catches ends the fast path: what is in the
                // line then is not what JSONEncoder would have, which decides.
                failed = true
                throw error
            }
            guard !failed else { throw Unsupported() }
            try close(downTo: depth)
            // JSONEncoder writes an empty object for a value that encoded nothing.
            if out.bytes.count == start { out.appendRaw("{}") }
        }
    }

    /// Marks the encoding failed and returns the error to throw.
    func unsupported() -> Unsupported {
        failed = true
        return Unsupported()
    }

    func writeDouble(_ number: Double) throws {
        guard number.isFinite else { throw unsupported() }
        // Through `TextOutputStream`, which hands over the digits without making a String
        // (`description` allocates one for 16 characters and more, such as most time stamps).
        var stream = NumberStream(encoder: self)
        number.write(to: &stream)
        trimWholeNumber()
    }

    func writeFloat(_ number: Float) throws {
        guard number.isFinite else { throw unsupported() }
        var stream = NumberStream(encoder: self)
        number.write(to: &stream)
        trimWholeNumber()
    }

    /// `1.0` is written `1`, as JSONEncoder does.
    private func trimWholeNumber() {
        let count = out.bytes.count
        if count >= 2 && out.bytes[count - 2] == UInt8(ascii: ".")
            && out.bytes[count - 1] == UInt8(ascii: "0")
        {
            out.bytes.removeLast(2)
        }
    }

    func writeUnsigned(_ number: UInt64) {
        if number <= UInt64(Int.max) {
            out.appendInteger(Int(number))
        } else {
            out.appendRaw(String(number))
        }
    }

    // MARK: - Frames

    /// Opens a container for the value slot `slot` of an encoder made at `depth`, or finds the
    /// one it opened before (a second `container(keyedBy:)` call adds to the same object).
    ///
    /// - Returns: The frame's serial, or 0 after marking the encoding failed.
    func open(_ kind: Frame.Kind, slot: Int, depth: Int) -> Int {
        // The throwaway encoder of an abandoned encoding has no place.
        guard depth >= 0 else { return fail() }
        if frames.count > depth, frames[depth].slot == slot {
            guard frames[depth].kind == kind, !frames[depth...].contains(where: \.busy),
                (try? close(downTo: depth + 1)) != nil
            else { return fail() }
            return frames[depth].serial
        }
        guard frames.count == depth, activeSlot == slot else { return fail() }
        return push(kind, slot: slot)
    }

    /// Opens a nested container at the end of the line.
    func push(_ kind: Frame.Kind, slot: Int) -> Int {
        serial += 1
        frames.append(
            Frame(
                kind: kind, serial: serial, slot: slot, byteStart: out.bytes.count, memberStart: members.count
            ))
        switch kind {
        case .keyed: out.bytes.append(UInt8(ascii: "{"))
        case .unkeyed: out.bytes.append(UInt8(ascii: "["))
        case .single: break
        }
        return serial
    }

    private func fail() -> Int {
        failed = true
        return 0
    }

    /// Makes the frame `serial` the innermost, completing the nested containers above it, so
    /// that a value can be added to it.
    ///
    /// - Returns: Its index in ``frames``.
    @inline(__always)
    func reach(_ serial: Int) throws -> Int {
        let last = frames.count - 1
        if last >= 0 && frames[last].serial == serial && !frames[last].busy { return last }
        return try reachSlowly(serial)
    }

    private func reachSlowly(_ serial: Int) throws -> Int {
        guard let index = frames.lastIndex(where: { $0.serial == serial }),
            !frames[index...].contains(where: \.busy)
        else { throw unsupported() }
        try close(downTo: index + 1)
        return index
    }

    /// Completes every frame from `depth` up.
    func close(downTo depth: Int) throws {
        while frames.count > depth {
            let frame = frames.removeLast()
            switch frame.kind {
            case .keyed: closeObject(frame)
            case .unkeyed: out.bytes.append(UInt8(ascii: "]"))
            case .single: if frame.count == 0 { out.appendRaw("{}") }
            }
        }
    }

    /// Writes `"key":` for a new member of the object at `index`; its value is written next.
    @inline(__always)
    func addMember(_ key: some CodingKey, to index: Int) throws {
        if frames[index].count > 0 { out.bytes.append(UInt8(ascii: ",")) }
        frames[index].count += 1
        let start = out.bytes.count
        var name = key.stringValue
        let escaped = name.withUTF8 { utf8 in
            out.appendString(utf8: utf8, escapingTerminalControls: false)
            return out.bytes.count - start != utf8.count + 2
        }
        // Keys are sorted by their bytes as written; a key that needed escaping would sort
        // differently from its text, so JSONEncoder takes it.
        if escaped { throw unsupported() }
        members.append(Member(start: start, keyEnd: out.bytes.count - 1))
        out.bytes.append(UInt8(ascii: ":"))
    }

    /// Adds the separator before the next element of the array at `index`.
    @inline(__always)
    func addElement(to index: Int) {
        if frames[index].count > 0 { out.bytes.append(UInt8(ascii: ",")) }
        frames[index].count += 1
    }

    /// Completes an object: its members are in the line, each `"key":value`; puts them in the
    /// order of their keys' UTF-8 bytes (JSONEncoder's) unless they already are, and for a key
    /// written twice keeps the last value.
    private func closeObject(_ frame: Frame) {
        let first = frame.memberStart
        let count = members.count - first
        defer { members.removeLast(count) }
        let end = out.bytes.count
        let inOrder =
            count < 2
            || out.bytes.withUnsafeBufferPointer { line in
                members.withUnsafeBufferPointer { members in
                    // Most objects come in declaration order, which is seldom sorted, so this usually
                    // stops early; objects already in order need no copying at all.
                    for member in first + 1..<first + count
                    where compare(members[member - 1], members[member], line) >= 0 {
                        return false
                    }
                    return true
                }
            }
        guard !inOrder else {
            out.bytes.append(UInt8(ascii: "}"))
            return
        }
        order.removeAll(keepingCapacity: true)
        assembly.removeAll(keepingCapacity: true)
        out.bytes.withUnsafeBufferPointer { line in
            members.withUnsafeBufferPointer { members in
                // Insertion sort, stable: an event has a few fields.
                for member in first..<first + count {
                    var position = order.count
                    order.append(member)
                    while position > 0
                        && compare(members[order[position]], members[order[position - 1]], line) < 0
                    {
                        order.swapAt(position, position - 1)
                        position -= 1
                    }
                }
                assembly.append(UInt8(ascii: "{"))
                for (position, member) in order.enumerated() {
                    if position + 1 < order.count
                        && compare(members[member], members[order[position + 1]], line) == 0
                    {
                        continue
                    }
                    if assembly.count > 1 { assembly.append(UInt8(ascii: ",")) }
                    // A member runs to the comma before the next one, or to the end of the object.
                    let memberEnd = member + 1 < first + count ? members[member + 1].start - 1 : end
                    assembly.append(
                        contentsOf: UnsafeBufferPointer(rebasing: line[members[member].start..<memberEnd]))
                }
                assembly.append(UInt8(ascii: "}"))
            }
        }
        out.bytes.removeLast(end - frame.byteStart)
        out.bytes.append(contentsOf: assembly)
    }

    /// Compares two members' keys as written (between their quotes), byte by byte.
    @inline(__always)
    private func compare(_ left: Member, _ right: Member, _ line: UnsafeBufferPointer<UInt8>) -> Int32 {
        let leftCount = left.keyEnd - left.start - 1
        let rightCount = right.keyEnd - right.start - 1
        // Byte by byte rather than `memcmp`: keys are short, and the call costs more than the loop.
        var offset = 0
        while offset < min(leftCount, rightCount) {
            let leftByte = line[left.start + 1 + offset]
            let rightByte = line[right.start + 1 + offset]
            if leftByte != rightByte { return leftByte < rightByte ? -1 : 1 }
            offset += 1
        }
        return leftCount == rightCount ? 0 : (leftCount < rightCount ? -1 : 1)
    }
}

/// Hands the digits of a floating-point number straight to the line.
private struct NumberStream: TextOutputStream {
    let encoder: PayloadEncoder

    mutating func write(_ string: String) {
        encoder.out.appendRaw(string)
    }

    // The standard library writes numbers through this one, with no String in between.
    mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) {
        encoder.out.bytes.append(contentsOf: buffer)
    }
}
