import Foundation
import Logging
import SQLKit
import SoukCore
import Synchronization

/// One available app as the storefront's lists show it (cards: home, categories, search, `/apps`).
public struct StorefrontApp: Sendable, Equatable {
    public var appleItemId: UInt64
    public var name: String
    public var subtitle: String
    public var developer: String
    /// Only read to build the search index; the index keeps its words, not the text.
    public var description: String
    public var category: String?
    public var featuredOrder: Int?
    /// The release date of the latest version still offered; nil: no version yet.
    public var latestRelease: Date?
    public var iconSHA256: String?
    /// `AppMedia` as JSON (the card's icon and its variants).
    public var mediaJSON: String?
    public var pricing: AppPricing
    /// The folded name: the lists' order (then the id).
    public let sortKey: String

    public init(appleItemId: UInt64, name: String, subtitle: String = "", developer: String = "", description: String = "",
                category: String? = nil, featuredOrder: Int? = nil, latestRelease: Date? = nil, iconSHA256: String? = nil,
                mediaJSON: String? = nil, pricing: AppPricing = .free) {
        self.init(appleItemId: appleItemId, name: name, subtitle: subtitle, developer: developer, category: category,
                  featuredOrder: featuredOrder, latestRelease: latestRelease, iconSHA256: iconSHA256, mediaJSON: mediaJSON,
                  pricing: pricing, sortKey: StorefrontCatalog.fold(name))
        self.description = description
    }

    /// An app read back from `StorefrontRecords`, its folded name stored with it.
    init(appleItemId: UInt64, name: String, subtitle: String, developer: String, category: String?, featuredOrder: Int?,
         latestRelease: Date?, iconSHA256: String?, mediaJSON: String?, pricing: AppPricing, sortKey: String) {
        self.appleItemId = appleItemId
        self.name = name
        self.subtitle = subtitle
        self.developer = developer
        self.description = ""
        self.category = category
        self.featuredOrder = featuredOrder
        self.latestRelease = latestRelease
        self.iconSHA256 = iconSHA256
        self.mediaJSON = mediaJSON
        self.pricing = pricing
        self.sortKey = sortKey
    }
}

/// The storefront's lists and its search index over the available apps, as a value: built once,
/// then changed app by app (`apply`), so that no page reads or tokenizes the catalog per request.
///
/// Search: every word of name, subtitle, developer and description is folded (case and
/// diacritics) and indexed once. A query's words must all match, each as a whole word or as the
/// prefix of one (from two characters); a match in the name ranks above one in the developer or
/// subtitle, and that above one in the description; ties go by name, then id.
///
/// Memory: the apps' cards are packed into one byte array (`StorefrontRecords`) and the search
/// index into flat arrays (`SearchPostings`): a few hundred bytes per app (docs/benchmarks.md,
/// "Memory per process").
public struct StorefrontCatalog: Sendable {
    private var records = StorefrontRecords()
    private var postings = SearchPostings()
    /// Slots freed by the last rebuild of the postings, ready to be taken again.
    private var freeSlots: [Int32] = []
    /// Slot → position in `byName` (`Int32.max` for a free slot).
    private var rankAt: [Int32] = []
    /// Ids by name then id; by latest release (newest first); per category by name.
    public private(set) var byName: [UInt64] = []
    public private(set) var newest: [UInt64] = []
    public private(set) var byCategory: [String: [UInt64]] = [:]
    private var featuredIds: Set<UInt64> = []

    static let exactWeights: [Int32] = [100, 20, 10]
    static let prefixWeights: [Int32] = [60, 12, 5]
    /// Shorter query words match whole words only (a one-letter prefix matches nearly everything).
    static let minimumPrefix = 2

    public init(_ apps: [StorefrontApp] = []) {
        add(apps)
        finish()
    }

    /// A catalog whose search index folds its changes in after `rebuildAfter` entries (tests).
    init(_ apps: [StorefrontApp], rebuildAfter: Int) {
        postings.rebuildAfter = rebuildAfter
        add(apps)
        finish()
    }

    /// The apps by id (each read from its packed record).
    public var apps: StorefrontApps { StorefrontApps(records: records) }

    public var count: Int { records.count }

    /// Adds apps without ordering them: a full load adds page after page, then calls `finish`.
    mutating func add(_ apps: [StorefrontApp]) {
        for app in apps {
            if records.slotOf[app.appleItemId] != nil { continue }
            let slot = Int32(records.slotCount)
            records.write(app, slot: slot)
            Self.index(app, slot: slot, into: &postings)
            if app.featuredOrder != nil { featuredIds.insert(app.appleItemId) }
        }
    }

    /// Sorts the lists and packs the search index after `add`.
    mutating func finish() {
        _ = postings.rebuild()
        let records = self.records
        // Sorted once by name; the other lists follow from that order (`newerLess` ties go by name).
        let byNameSlots = records.slotsByName()
        rankAt = [Int32](repeating: Int32.max, count: records.slotCount)
        for (position, slot) in byNameSlots.enumerated() { rankAt[Int(slot)] = Int32(position) }
        byName = byNameSlots.map(records.id(atSlot:))
        let rankAt = self.rankAt
        let releases = records.releases()
        newest = byNameSlots.sorted { a, b in
            let (left, right) = (releases[Int(a)], releases[Int(b)])
            return left != right ? left > right : rankAt[Int(a)] < rankAt[Int(b)]
        }.map(records.id(atSlot:))
        byCategory = [:]
        for slot in byNameSlots {
            if let category = records.category(atSlot: slot) { byCategory[category, default: []].append(records.id(atSlot: slot)) }
        }
    }

    /// The featured apps, by `featuredOrder` then name.
    public var featured: [StorefrontApp] {
        featuredIds.compactMap { records[$0] }.sorted {
            ($0.featuredOrder ?? 0, rank(of: $0.appleItemId)) < ($1.featuredOrder ?? 0, rank(of: $1.appleItemId))
        }
    }

    /// Category slugs with at least one app, and how many.
    public var categoryCounts: [String: Int] {
        byCategory.mapValues(\.count).filter { $0.value > 0 }
    }

    /// Replaces, adds (`app`) or removes (`nil`) apps.
    public mutating func apply(_ changes: [UInt64: StorefrontApp?]) {
        guard !changes.isEmpty else { return }
        for (id, app) in changes {
            if records.slotOf[id] != nil { remove(id) }
            if let app { insert(app) }
        }
        if postings.needsRebuild { freeSlots.append(contentsOf: postings.rebuild()) }
        records.compactIfWasteful()
        rank()
    }

    /// The ids matching `query`, best first; empty for a query without words.
    public func search(_ query: String) -> [UInt64] {
        // The rarest word first: every later word only counts for the apps the earlier ones matched,
        // so a word that matches nearly every app ("bench" of "bench 12") adds one cheap check per
        // entry instead of a candidate each (docs/benchmarks.md, "Ten times more, measured").
        var counted: [(term: String, lists: SearchPostings.EntryLists, matches: Int)] = []
        for term in Set(Self.words(query)).prefix(8) {
            let lists = postings.entryLists(term, longer: term.count >= Self.minimumPrefix)
            counted.append((term, lists, lists.count))
        }
        counted.sort { left, right in left.matches != right.matches ? left.matches < right.matches : left.term < right.term }
        let slotCount = records.slotCount
        guard !counted.isEmpty, records.count > 0 else { return [] }
        // Flat arrays by slot: a word shared by every app costs one pass, no hashing per app.
        var total = [Int32](repeating: 0, count: slotCount)
        // How many of the words a slot matched so far. A removed app's slot (its entries stay until
        // the next rebuild) is marked past any word's number, so the one check per entry skips it:
        // a lookup in the set of stale slots per entry cost more than the rest of the walk.
        var matched = [UInt8](repeating: 0, count: slotCount)
        for slot in postings.stale { matched[Int(slot)] = .max }
        var best = [Int32](repeating: 0, count: slotCount)
        var candidates: [Int32] = []
        for (termIndex, term) in counted.enumerated() {
            var touched: [Int32] = []
            for (lists, weights) in [(term.lists.exact, Self.exactWeights), (term.lists.longer, Self.prefixWeights)] {
                for list in lists {
                    for entry in list {
                        let slot = Int(entry >> 2)
                        guard Int(matched[slot]) == termIndex else { continue }
                        let weight = weights[Int(entry & 3)]
                        let old = best[slot]
                        if old == 0 { touched.append(Int32(slot)) }
                        if old < weight { best[slot] = weight }
                    }
                }
            }
            for slot in touched {
                matched[Int(slot)] += 1
                total[Int(slot)] += best[Int(slot)]
                best[Int(slot)] = 0
            }
            candidates = touched
            if candidates.isEmpty { return [] }
        }
        // A name that is the query, or starts with it, comes first: a range of `byName`.
        let whole = Self.fold(query)
        var index = lowerBound(byName: whole)
        while index < byName.count, let slot = records.slotOf[byName[index]] {
            let sortKey = records.sortKey(atSlot: slot)
            guard sortKey.hasPrefix(whole) else { break }
            total[Int(slot)] += sortKey == whole ? 1_000 : 200
            index += 1
        }
        // One integer per match: score, then name order. The name order is a position in `byName`,
        // which holds the id: no lookup back from the key, no record read per match.
        var keys: [Int] = []
        keys.reserveCapacity(candidates.count)
        for slot in candidates {
            let rank = rankAt[Int(slot)]
            guard Int(rank) < byName.count else { continue }
            keys.append((Int(total[Int(slot)]) << 32) | Int(Int32.max - rank))
        }
        keys.sort(by: >)
        return keys.map { byName[Int(Int32.max - Int32(truncatingIfNeeded: $0 & 0xFFFF_FFFF))] }
    }

    // MARK: Words

    /// Case- and diacritic-folded text, its words separated by single spaces.
    public static func fold(_ text: String) -> String {
        words(text).joined(separator: " ")
    }

    /// The folded words of `text` (letters and digits; everything else separates).
    public static func words(_ text: String) -> [String] {
        var words: [String] = []
        forEachWord(text) { words.append($0) }
        return words
    }

    /// Calls `body` with each folded word of `text`, in order (`words`). ASCII text is folded
    /// byte by byte into one buffer, without an array of words.
    static func forEachWord(_ text: String, _ body: (String) -> Void) {
        var text = text
        let ascii = text.withUTF8 { utf8 -> Bool in
            guard utf8.allSatisfy({ $0 < 0x80 }) else { return false }
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(1, utf8.count)) { buffer in
                var length = 0
                for byte in utf8 {
                    switch byte {
                    case 0x30...0x39, 0x61...0x7A:
                        buffer[length] = byte
                        length += 1
                    case 0x41...0x5A:
                        buffer[length] = byte + 0x20
                        length += 1
                    default:
                        guard length > 0 else { continue }
                        body(String(decoding: UnsafeBufferPointer(rebasing: buffer[0..<length]), as: UTF8.self))
                        length = 0
                    }
                }
                if length > 0 { body(String(decoding: UnsafeBufferPointer(rebasing: buffer[0..<length]), as: UTF8.self)) }
            }
            return true
        }
        guard !ascii else { return }
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil).lowercased()
        var current = String.UnicodeScalarView()
        for scalar in folded.unicodeScalars {
            if scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
                current.append(scalar)
            } else if !current.isEmpty {
                body(String(current))
                current = String.UnicodeScalarView()
            }
        }
        if !current.isEmpty { body(String(current)) }
    }

    /// Indexes `app`'s words: its name's (tier 0: the words of its folded name), its developer's
    /// and subtitle's (1) and its description's (2), each word once per tier.
    static func index(_ app: StorefrontApp, slot: Int32, into postings: inout SearchPostings) {
        for word in app.sortKey.split(separator: " ") { postings.add(String(word), slot: slot, tier: 0) }
        forEachWord(app.developer) { postings.add($0, slot: slot, tier: 1) }
        forEachWord(app.subtitle) { postings.add($0, slot: slot, tier: 1) }
        forEachWord(app.description) { postings.add($0, slot: slot, tier: 2) }
    }

    // MARK: Maintenance

    private mutating func remove(_ id: UInt64) {
        guard let slot = records.slotOf[id] else { return }
        // The copy is let go before `records` changes: a change while it is held would copy every byte.
        do {
            let records = self.records
            func less(_ a: UInt64, _ b: UInt64) -> Bool { records.nameLess(records.slotOf[a] ?? slot, records.slotOf[b] ?? slot) }
            Self.removeFrom(&byName, id, less)
            Self.removeFrom(&newest, id) { records.newerLess(records.slotOf[$0] ?? slot, records.slotOf[$1] ?? slot) }
            if let category = records.category(atSlot: slot) {
                Self.removeFrom(&byCategory[category, default: []], id, less)
                if byCategory[category]?.isEmpty == true { byCategory[category] = nil }
            }
        }
        featuredIds.remove(id)
        _ = records.remove(id)
        postings.removeSlot(slot)
    }

    private mutating func insert(_ app: StorefrontApp) {
        let id = app.appleItemId
        let slot = freeSlots.popLast() ?? Int32(records.slotCount)
        records.write(app, slot: slot)
        Self.index(app, slot: slot, into: &postings)
        let records = self.records
        func less(_ a: UInt64, _ b: UInt64) -> Bool {
            guard let left = records.slotOf[a], let right = records.slotOf[b] else { return a < b }
            return records.nameLess(left, right)
        }
        func newer(_ a: UInt64, _ b: UInt64) -> Bool {
            guard let left = records.slotOf[a], let right = records.slotOf[b] else { return a < b }
            return records.newerLess(left, right)
        }
        Self.insertInto(&byName, id, less)
        Self.insertInto(&newest, id, newer)
        if let category = app.category { Self.insertInto(&byCategory[category, default: []], id, less) }
        if app.featuredOrder != nil { featuredIds.insert(id) }
    }

    private mutating func rank() {
        rankAt = [Int32](repeating: Int32.max, count: records.slotCount)
        for (position, id) in byName.enumerated() {
            if let slot = records.slotOf[id] { rankAt[Int(slot)] = Int32(position) }
        }
    }

    private func rank(of id: UInt64) -> Int32 {
        records.slotOf[id].map { rankAt[Int($0)] } ?? Int32.max
    }

    /// The first position in `byName` whose folded name is not below `key`.
    private func lowerBound(byName key: String) -> Int {
        var low = 0, high = byName.count
        while low < high {
            let middle = (low + high) / 2
            if (records.slotOf[byName[middle]].map(records.sortKey(atSlot:)) ?? "") < key { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// `id` must still be in the records with the values it was inserted with.
    private static func removeFrom(_ list: inout [UInt64], _ id: UInt64, _ less: (UInt64, UInt64) -> Bool) {
        var low = 0, high = list.count
        while low < high {
            let middle = (low + high) / 2
            if less(list[middle], id) { low = middle + 1 } else { high = middle }
        }
        if low < list.count, list[low] == id { list.remove(at: low) } else if let at = list.firstIndex(of: id) { list.remove(at: at) }
    }

    private static func insertInto(_ list: inout [UInt64], _ id: UInt64, _ less: (UInt64, UInt64) -> Bool) {
        var low = 0, high = list.count
        while low < high {
            let middle = (low + high) / 2
            if less(list[middle], id) { low = middle + 1 } else { high = middle }
        }
        list.insert(id, at: low)
    }
}

/// The storefront's apps by id, each decoded from its packed record when asked for.
public struct StorefrontApps: Sendable {
    let records: StorefrontRecords

    public subscript(id: UInt64) -> StorefrontApp? { records[id] }

    public var count: Int { records.count }
}

/// The `StorefrontCatalog` of the available apps, kept current like `CatalogIndex`: loaded in full
/// on first use, then at most once per `refreshInterval` the catalog revision is checked (one
/// single-row query) and only the apps named in the change log since are read again. Pages are
/// answered from the current value while a refresh runs; `.zero` checks before every read (tests).
/// The change log is pruned by `CatalogIndex`; a gap here means a full reload.
public final class StorefrontIndex: Sendable {
    private struct State {
        var catalog = StorefrontCatalog()
        var revision: Int64?
        var lastCheck: ContinuousClock.Instant?
        var inFlight: Task<Void, any Error>?
    }

    let database: SoukDatabase
    let refreshInterval: Duration
    let logger: Logger
    private let state = Mutex(State())

    /// Apps read per query by a full load.
    let loadPageSize: Int

    public init(database: SoukDatabase, refreshInterval: Duration = .seconds(1), logger: Logger? = nil, loadPageSize: Int = 20_000) {
        self.database = database
        self.refreshInterval = refreshInterval
        self.logger = logger ?? database.logger
        self.loadPageSize = max(1, loadPageSize)
    }

    /// The current catalog (a copy-on-write value: reading it costs nothing).
    public func catalog() async throws -> StorefrontCatalog {
        try await ensureFresh()
        return state.withLock { $0.catalog }
    }

    /// The current catalog and the catalog revision it is at: what is built from the catalog can be
    /// kept until the revision moves (the sitemap).
    public func catalogAtRevision() async throws -> (catalog: StorefrontCatalog, revision: Int64?) {
        try await ensureFresh()
        return state.withLock { ($0.catalog, $0.revision) }
    }

    private func ensureFresh() async throws {
        if refreshInterval == .zero {
            while true {
                let (running, mine): (Task<Void, any Error>?, Task<Void, any Error>?) = state.withLock { state in
                    if let inFlight = state.inFlight { return (inFlight, nil) }
                    let task = Task { try await self.performRefresh() }
                    state.inFlight = task
                    return (nil, task)
                }
                if let mine { return try await mine.value }
                _ = try? await running?.value
            }
        }
        let now = ContinuousClock.now
        let wait: Task<Void, any Error>? = state.withLock { state in
            if let inFlight = state.inFlight { return state.revision == nil ? inFlight : nil }
            if state.revision != nil, let last = state.lastCheck, now - last < refreshInterval { return nil }
            let task = Task { try await self.performRefresh() }
            state.inFlight = task
            return state.revision == nil ? task : nil
        }
        try await wait?.value
    }

    private func performRefresh() async throws {
        defer { state.withLock { $0.inFlight = nil; $0.lastCheck = .now } }
        let known = state.withLock { $0.revision }
        let latest = try await CatalogIndex.currentRevision(database)
        if let known, latest == known { return }
        if let known, let changed = try await CatalogIndex.changedApps(database, after: known, upTo: latest) {
            let loaded = try await load(only: changed)
            var changes: [UInt64: StorefrontApp?] = [:]
            for id in changed { changes[id] = .some(loaded[id]) }
            // One refresh runs at a time: the value taken here is the one put back.
            var catalog = state.withLock { $0.catalog }
            catalog.apply(changes)
            state.withLock { $0.catalog = catalog; $0.revision = latest }
        } else {
            let started = ContinuousClock.now
            let catalog = try await loadAll()
            state.withLock { $0.catalog = catalog; $0.revision = latest }
            ReleaseFreeMemory.now()
            logger.info("storefront index loaded", metadata: [
                "apps": "\(catalog.count)", "revision": "\(latest)", "took": "\(ContinuousClock.now - started)",
            ])
        }
    }

    private static let appColumns = ["apple_item_id", "name", "subtitle", "description", "developer_name", "icon_sha256", "prices",
                                     "requires_entitlement", "category", "featured_order", "media"]

    /// The available apps among `ids` with their latest release, in two queries.
    func load(only ids: Set<UInt64>) async throws -> [UInt64: StorefrontApp] {
        if ids.isEmpty { return [:] }
        let stored = ids.map(AppleIDColumn.store)
        let appRows = try await database.sql.select().columns(Self.appColumns).from("apps")
            .where("availability", .equal, Availability.available.rawValue).where("apple_item_id", .in, stored).all()
        let versionRows = try await database.sql.raw("""
            SELECT a.apple_item_id AS apple_item_id, v.release_date AS release_date FROM app_versions v JOIN apps a ON a.id = v.app_id
            WHERE v.withdrawn_at IS NULL AND v.review_state = \(bind: VersionReviewState.released.rawValue) AND a.apple_item_id IN (\(binds: stored))
            """).all()
        return Dictionary(try Self.apps(appRows, versionRows).map { ($0.appleItemId, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Apps from their rows, each with the latest release date among its versions' rows.
    private static func apps(_ appRows: [any SQLRow], _ versionRows: [any SQLRow]) throws -> [StorefrontApp] {
        var latest: [UInt64: Date] = [:]
        for row in versionRows {
            let item = AppleIDColumn.load(try row.decode(column: "apple_item_id", as: Int64.self))
            let released = try row.decode(column: "release_date", as: Date.self)
            if (latest[item] ?? .distantPast) < released { latest[item] = released }
        }
        return try appRows.map { row in
            let item = AppleIDColumn.load(try row.decode(column: "apple_item_id", as: Int64.self))
            return StorefrontApp(
                appleItemId: item,
                name: try row.decode(column: "name", as: String.self), subtitle: try row.decode(column: "subtitle", as: String.self),
                developer: try row.decode(column: "developer_name", as: String.self),
                description: try row.decode(column: "description", as: String.self),
                category: try row.decode(column: "category", as: String?.self),
                featuredOrder: try row.decode(column: "featured_order", as: Int?.self), latestRelease: latest[item],
                iconSHA256: try row.decode(column: "icon_sha256", as: String?.self),
                mediaJSON: try row.decode(column: "media", as: String?.self),
                pricing: AppPricing(prices: AppPricing.decode(try row.decode(column: "prices", as: String?.self)),
                                    requiresEntitlement: try row.decode(column: "requires_entitlement", as: String?.self)))
        }
    }
}
