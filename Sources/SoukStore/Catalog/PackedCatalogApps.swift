import Foundation
import SoukCore

/// `CatalogIndex`'s apps: each app's record (bundle id, access, availability, pricing, versions)
/// packed into a byte array, found by a dictionary from its Apple item id to its offset.
/// A lookup decodes the record into a `CatalogApp` (a few hundred nanoseconds: the update check
/// asks for the apps it names, never scans), so the per-request cost does not grow with the
/// catalog while an app costs about 60 bytes of record and 16 of dictionary instead of a
/// `CatalogApp` with its arrays, dictionaries and strings (about 1.5 KB).
struct PackedCatalogApps: Sendable {
    /// Apps spread over shards by id, each its own dictionary and byte array: a change made while
    /// requests hold the current copy copies one shard (copy-on-write), not the whole catalog.
    private struct Shard: Sendable {
        var offsets: [UInt64: Int] = [:]
        var bytes: [UInt8] = []
        /// Bytes of records replaced or removed; the array is rewritten when they outweigh the rest.
        var garbage = 0
    }

    private static let shardCount = 64
    private var shards = [Shard](repeating: Shard(), count: shardCount)
    private var platformSets = Interner<[Platform]>()
    private var minimumOSes = Interner<[Platform: OSVersion]>()
    private var pricings = Interner<AppPricing>()

    private(set) var count = 0

    init() {}

    subscript(id: UInt64) -> CatalogApp? {
        get {
            let shard = Int(id % UInt64(Self.shardCount))
            guard let offset = shards[shard].offsets[id] else { return nil }
            return shards[shard].bytes.withUnsafeBufferPointer { buffer in
                var reader = PackedReader(bytes: buffer, at: offset)
                return decode(id, &reader)
            }
        }
        set {
            let shard = Int(id % UInt64(Self.shardCount))
            if let old = shards[shard].offsets[id] {
                shards[shard].garbage += Self.recordLength(shards[shard].bytes, at: old)
                count -= 1
            }
            guard let app = newValue else {
                shards[shard].offsets[id] = nil
                compactIfWasteful(shard)
                return
            }
            var writer = PackedWriter()
            swap(&writer.bytes, &shards[shard].bytes)
            let offset = writer.bytes.count
            encode(app, into: &writer)
            swap(&writer.bytes, &shards[shard].bytes)
            shards[shard].offsets[id] = offset
            count += 1
            compactIfWasteful(shard)
        }
    }

    private mutating func encode(_ app: CatalogApp, into writer: inout PackedWriter) {
        writer.string(app.bundleId)
        writer.bytes.append(app.access == .public ? 0 : 1)
        writer.varint(Availability.allCases.firstIndex(of: app.availability) ?? 0)
        writer.varint(pricings.index(app.pricing))
        for list in [app.versions, app.withdrawnVersions] {
            writer.varint(list.count)
            for version in list {
                writer.uint64(version.appleVersionId)
                writer.string(version.bundleVersion)
                writer.string(version.shortVersionString)
                writer.varint(platformSets.index(version.platforms))
                writer.varint(minimumOSes.index(version.minimumOS))
                writer.date(version.releaseDate)
            }
        }
    }

    private func decode(_ id: UInt64, _ reader: inout PackedReader) -> CatalogApp {
        let bundleId = reader.string()
        let access: AccessPolicy = reader.bytes[reader.at] == 0 ? .public : .account
        reader.at += 1
        let availability = Availability.allCases[reader.varint()]
        let pricing = pricings[reader.varint()]
        var lists: [[CatalogVersion]] = []
        for _ in 0..<2 {
            let count = reader.varint()
            var list: [CatalogVersion] = []
            list.reserveCapacity(count)
            for _ in 0..<count {
                list.append(CatalogVersion(appleVersionId: reader.uint64(), bundleVersion: reader.string(),
                                           shortVersionString: reader.string(), platforms: platformSets[reader.varint()],
                                           minimumOS: minimumOSes[reader.varint()], releaseDate: reader.date()))
            }
            lists.append(list)
        }
        // Stored newest first already: assigned, not sorted again by `CatalogApp.init`.
        var app = CatalogApp(appleItemId: id, bundleId: bundleId, access: access, availability: availability, versions: [], pricing: pricing)
        app.versions = lists[0]
        app.withdrawnVersions = lists[1]
        return app
    }

    private static func recordLength(_ bytes: [UInt8], at offset: Int) -> Int {
        bytes.withUnsafeBufferPointer { buffer in
            var reader = PackedReader(bytes: buffer, at: offset)
            reader.skipString()
            reader.at += 1
            _ = reader.varint()
            _ = reader.varint()
            for _ in 0..<2 {
                for _ in 0..<reader.varint() {
                    reader.at += 8
                    reader.skipString()
                    reader.skipString()
                    _ = reader.varint()
                    _ = reader.varint()
                    reader.at += 8
                }
            }
            return reader.at - offset
        }
    }

    private mutating func compactIfWasteful(_ shard: Int) {
        let old = shards[shard]
        guard old.garbage > 1 << 20, old.garbage > old.bytes.count / 2 else { return }
        var packed = Shard()
        packed.offsets.reserveCapacity(old.offsets.count)
        for (id, offset) in old.offsets {
            let length = Self.recordLength(old.bytes, at: offset)
            packed.offsets[id] = packed.bytes.count
            packed.bytes.append(contentsOf: old.bytes[offset..<(offset + length)])
        }
        shards[shard] = packed
    }
}
