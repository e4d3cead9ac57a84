import Foundation

/// Values written one after another into one growing byte array, read back from an offset: the
/// in-memory indexes keep an app as a few dozen bytes here instead of a tree of Swift objects
/// (a `String` over 15 bytes, an array or a dictionary is a heap allocation of its own, and a
/// dictionary of structs keeps a quarter or more of its buckets empty). docs/benchmarks.md,
/// "Memory per process", has the numbers.
struct PackedWriter {
    var bytes: [UInt8] = []

    mutating func varint(_ value: Int) {
        var rest = UInt64(value)
        while rest >= 0x80 {
            bytes.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    mutating func uint64(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func date(_ value: Date) {
        uint64(value.timeIntervalSinceReferenceDate.bitPattern)
    }

    mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            varint(utf8.count)
            bytes.append(contentsOf: utf8)
        }
    }

    /// Absent strings are written as length 0 after a 0 marker; present ones after a 1.
    mutating func optionalString(_ value: String?) {
        if let value {
            bytes.append(1)
            string(value)
        } else {
            bytes.append(0)
        }
    }
}

/// Reads what `PackedWriter` wrote, in the same order.
struct PackedReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var at: Int

    mutating func varint() -> Int {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = bytes[at]
            at += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return Int(value) }
            shift += 7
        }
    }

    mutating func uint64() -> UInt64 {
        var value: UInt64 = 0
        for index in 0..<8 { value |= UInt64(bytes[at + index]) << (8 * UInt64(index)) }
        at += 8
        return value
    }

    mutating func date() -> Date {
        Date(timeIntervalSinceReferenceDate: Double(bitPattern: uint64()))
    }

    mutating func string() -> String {
        let count = varint()
        defer { at += count }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[at..<(at + count)]), as: UTF8.self)
    }

    /// The bytes of the next string, without making a `String` (comparisons while sorting).
    mutating func stringBytes() -> UnsafeBufferPointer<UInt8> {
        let count = varint()
        defer { at += count }
        return UnsafeBufferPointer(rebasing: bytes[at..<(at + count)])
    }

    mutating func optionalString() -> String? {
        let present = bytes[at]
        at += 1
        return present == 0 ? nil : string()
    }

    mutating func skipString() {
        let count = varint()
        at += count
    }
}

/// Equal values stored once: an index costs a few bytes where a copy of the value would cost a
/// heap allocation (a version's platforms, its minimum OS versions, an app's prices).
struct Interner<Value: Hashable & Sendable>: Sendable {
    private(set) var values: [Value] = []
    private var indexOf: [Value: Int] = [:]

    mutating func index(_ value: Value) -> Int {
        if let index = indexOf[value] { return index }
        values.append(value)
        indexOf[value] = values.count - 1
        return values.count - 1
    }

    subscript(index: Int) -> Value { values[index] }
}
