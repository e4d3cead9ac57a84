import Foundation
import SoukCore

/// The storefront index's apps by slot: each app's card (id, latest release, folded name, name,
/// subtitle, developer, category, featured order, icon, media, pricing) packed into one shared
/// byte array. A slot is a dense integer, so that search scores into flat arrays and the lists
/// sort slots without a dictionary lookup per comparison.
struct StorefrontRecords: Sendable {
    private(set) var slotOf: [UInt64: Int32] = [:]
    /// Slot → the record's offset in `bytes`; -1 for a free slot.
    private(set) var offsetAt: [Int] = []
    private var bytes: [UInt8] = []
    private var garbage = 0
    private var pricings = Interner<AppPricing>()

    var count: Int { slotOf.count }
    var slotCount: Int { offsetAt.count }

    subscript(id: UInt64) -> StorefrontApp? {
        slotOf[id].map { app(atSlot: $0) }
    }

    func app(atSlot slot: Int32) -> StorefrontApp {
        bytes.withUnsafeBufferPointer { buffer in
            var reader = PackedReader(bytes: buffer, at: offsetAt[Int(slot)])
            let id = reader.uint64()
            let released = Double(bitPattern: reader.uint64())
            let sortKey = reader.string()
            let name = reader.string()
            let subtitle = reader.string()
            let developer = reader.string()
            let category = reader.optionalString()
            var featured: Int?
            reader.at += 1
            if reader.bytes[reader.at - 1] != 0 { featured = Int(Int64(bitPattern: reader.uint64())) }
            let icon = reader.optionalString()
            let media = reader.optionalString()
            return StorefrontApp(appleItemId: id, name: name, subtitle: subtitle, developer: developer, category: category,
                                 featuredOrder: featured, latestRelease: released.isNaN ? nil : Date(timeIntervalSinceReferenceDate: released),
                                 iconSHA256: icon, mediaJSON: media, pricing: pricings[reader.varint()], sortKey: sortKey)
        }
    }

    /// Writes `app` into `slot` (claimed by the caller).
    mutating func write(_ app: StorefrontApp, slot: Int32) {
        var writer = PackedWriter()
        swap(&writer.bytes, &bytes)
        let offset = writer.bytes.count
        writer.uint64(app.appleItemId)
        writer.uint64((app.latestRelease?.timeIntervalSinceReferenceDate ?? .nan).bitPattern)
        writer.string(app.sortKey)
        writer.string(app.name)
        writer.string(app.subtitle)
        writer.string(app.developer)
        writer.optionalString(app.category)
        if let featured = app.featuredOrder {
            writer.bytes.append(1)
            writer.uint64(UInt64(bitPattern: Int64(featured)))
        } else {
            writer.bytes.append(0)
        }
        writer.optionalString(app.iconSHA256)
        writer.optionalString(app.mediaJSON)
        writer.varint(pricings.index(app.pricing))
        swap(&writer.bytes, &bytes)
        while offsetAt.count <= Int(slot) { offsetAt.append(-1) }
        if offsetAt[Int(slot)] >= 0 { garbage += recordLength(atSlot: slot) }
        offsetAt[Int(slot)] = offset
        slotOf[app.appleItemId] = slot
    }

    /// Frees `id`'s slot (its record becomes garbage); returns the slot.
    mutating func remove(_ id: UInt64) -> Int32? {
        guard let slot = slotOf.removeValue(forKey: id) else { return nil }
        garbage += recordLength(atSlot: slot)
        offsetAt[Int(slot)] = -1
        return slot
    }

    private func recordLength(atSlot slot: Int32) -> Int {
        bytes.withUnsafeBufferPointer { buffer in
            let start = offsetAt[Int(slot)]
            var reader = PackedReader(bytes: buffer, at: start + 16)
            for _ in 0..<4 { reader.skipString() }
            _ = reader.optionalString()
            reader.at += 1
            if reader.bytes[reader.at - 1] != 0 { reader.at += 8 }
            _ = reader.optionalString()
            _ = reader.optionalString()
            _ = reader.varint()
            return reader.at - start
        }
    }

    /// Rewrites the byte array without the records of removed or replaced apps, when they are
    /// more than half of it.
    mutating func compactIfWasteful() {
        guard garbage > 1 << 20, garbage > bytes.count / 2 else { return }
        var packed = StorefrontRecords()
        packed.offsetAt = [Int](repeating: -1, count: offsetAt.count)
        for slot in slotOf.values { packed.write(app(atSlot: slot), slot: slot) }
        self = packed
    }

    // MARK: Order

    func id(atSlot slot: Int32) -> UInt64 {
        bytes.withUnsafeBufferPointer { buffer in
            var reader = PackedReader(bytes: buffer, at: offsetAt[Int(slot)])
            return reader.uint64()
        }
    }

    func sortKey(atSlot slot: Int32) -> String {
        bytes.withUnsafeBufferPointer { buffer in
            var reader = PackedReader(bytes: buffer, at: offsetAt[Int(slot)] + 16)
            return reader.string()
        }
    }

    /// By folded name, then id (`String` order: bytes when both are ASCII, which is the same).
    func nameLess(_ a: Int32, _ b: Int32) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            var left = PackedReader(bytes: buffer, at: offsetAt[Int(a)])
            var right = PackedReader(bytes: buffer, at: offsetAt[Int(b)])
            let (leftID, rightID) = (left.uint64(), right.uint64())
            left.at += 8
            right.at += 8
            let (leftKey, rightKey) = (left.stringBytes(), right.stringBytes())
            let order = Self.compare(leftKey, rightKey)
            return order != 0 ? order < 0 : leftID < rightID
        }
    }

    /// By latest release, newest first (no release last), then by name.
    func newerLess(_ a: Int32, _ b: Int32) -> Bool {
        let (left, right) = (release(atSlot: a), release(atSlot: b))
        return left != right ? left > right : nameLess(a, b)
    }

    private func release(atSlot slot: Int32) -> Double {
        bytes.withUnsafeBufferPointer { buffer in
            var reader = PackedReader(bytes: buffer, at: offsetAt[Int(slot)] + 8)
            let value = Double(bitPattern: reader.uint64())
            return value.isNaN ? -Double.greatestFiniteMagnitude : value
        }
    }

    func category(atSlot slot: Int32) -> String? {
        bytes.withUnsafeBufferPointer { buffer in
            var reader = PackedReader(bytes: buffer, at: offsetAt[Int(slot)] + 16)
            for _ in 0..<4 { reader.skipString() }
            return reader.optionalString()
        }
    }

    /// Every app's slot in `nameLess` order, each slot's folded name located once (not per
    /// comparison) and compared by its first sixteen bytes as two integers when both are ASCII.
    func slotsByName() -> [Int32] {
        var slots = Array(slotOf.values)
        bytes.withUnsafeBufferPointer { buffer in
            var keys = [NameKey](repeating: NameKey(), count: slotCount)
            for slot in slots {
                var reader = PackedReader(bytes: buffer, at: offsetAt[Int(slot)])
                let id = reader.uint64()
                reader.at += 8
                let key = reader.stringBytes()
                var prefix: UInt64 = 0, next: UInt64 = 0
                for (index, byte) in key.prefix(8).enumerated() { prefix |= UInt64(byte) << UInt64(56 - 8 * index) }
                for (index, byte) in key.dropFirst(8).prefix(8).enumerated() { next |= UInt64(byte) << UInt64(56 - 8 * index) }
                keys[Int(slot)] = NameKey(id: id, start: key.baseAddress.map { $0 - buffer.baseAddress! } ?? 0, count: key.count,
                                          ascii: key.allSatisfy { $0 < 0x80 }, prefix: prefix, next: next)
            }
            slots.sort { a, b in
                let (left, right) = (keys[Int(a)], keys[Int(b)])
                let order: Int
                if left.ascii && right.ascii {
                    // ASCII keys hold no zero byte: a shorter key's padding sorts first, as `compare` does.
                    // Names that share their first eight bytes ("bench 12…") mostly differ in the next eight.
                    if left.prefix != right.prefix { return left.prefix < right.prefix }
                    if left.next != right.next { return left.next < right.next }
                    if left.count <= 16 || right.count <= 16 {
                        order = left.count == right.count ? 0 : (left.count < right.count ? -1 : 1)
                    } else {
                        order = Self.compareBytes(UnsafeBufferPointer(rebasing: buffer[(left.start + 16)..<(left.start + left.count)]),
                                                  UnsafeBufferPointer(rebasing: buffer[(right.start + 16)..<(right.start + right.count)]))
                    }
                } else {
                    order = Self.compare(UnsafeBufferPointer(rebasing: buffer[left.start..<(left.start + left.count)]),
                                         UnsafeBufferPointer(rebasing: buffer[right.start..<(right.start + right.count)]))
                }
                return order != 0 ? order < 0 : left.id < right.id
            }
        }
        return slots
    }

    /// A slot's folded name as `slotsByName` compares it.
    private struct NameKey {
        var id: UInt64 = 0
        var start = 0
        var count = 0
        var ascii = true
        /// Bytes 0–7 and 8–15 of the key, big-endian, zero-padded.
        var prefix: UInt64 = 0
        var next: UInt64 = 0
    }

    /// Every slot's latest release as `newerLess` compares it (free slots: any value).
    func releases() -> [Double] {
        (0..<slotCount).map { offsetAt[$0] < 0 ? 0 : release(atSlot: Int32($0)) }
    }

    static func compare(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Int {
        if left.allSatisfy({ $0 < 0x80 }) && right.allSatisfy({ $0 < 0x80 }) { return compareBytes(left, right) }
        let (l, r) = (String(decoding: left, as: UTF8.self), String(decoding: right, as: UTF8.self))
        return l == r ? 0 : (l < r ? -1 : 1)
    }

    /// Byte order (shorter first when one is the other's prefix).
    static func compareBytes(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Int {
        for (l, r) in zip(left, right) where l != r { return l < r ? -1 : 1 }
        return left.count == right.count ? 0 : (left.count < right.count ? -1 : 1)
    }
}
