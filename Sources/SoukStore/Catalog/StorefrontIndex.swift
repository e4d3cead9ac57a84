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
        self.appleItemId = appleItemId
        self.name = name
        self.subtitle = subtitle
        self.developer = developer
        self.description = description
        self.category = category
        self.featuredOrder = featuredOrder
        self.latestRelease = latestRelease
        self.iconSHA256 = iconSHA256
        self.mediaJSON = mediaJSON
        self.pricing = pricing
        self.sortKey = StorefrontCatalog.fold(name)
    }
}

/// The storefront's lists and its search index over the available apps, as a value: built once,
/// then changed app by app (`apply`), so that no page reads or tokenizes the catalog per request.
///
/// Search: every word of name, subtitle, developer and description is folded (case and
/// diacritics) and indexed once. A query's words must all match, each as a whole word or as the
/// prefix of one (from two characters); a match in the name ranks above one in the developer or
/// subtitle, and that above one in the description; ties go by name, then id.
public struct StorefrontCatalog: Sendable {
    public private(set) var apps: [UInt64: StorefrontApp] = [:]
    /// Word → apps (by slot), per field tier: 0 name, 1 developer and subtitle, 2 description.
    private var postings: [[String: Set<Int32>]] = [[:], [:], [:]]
    /// Every app has a dense slot while listed, so a search scores into flat arrays.
    private var slotOf: [UInt64: Int32] = [:]
    private var idAt: [UInt64] = []
    private var freeSlots: [Int32] = []
    /// Slot → position in `byName` (`Int32.max` for a free slot).
    private var rankAt: [Int32] = []
    private var wordsByApp: [UInt64: [[String]]] = [:]
    /// Every word ever indexed, sorted (prefix lookups); words no longer used have empty postings.
    private var vocabulary: [String] = []
    /// Ids by name then id; by latest release (newest first); per category by name.
    public private(set) var byName: [UInt64] = []
    public private(set) var newest: [UInt64] = []
    public private(set) var byCategory: [String: [UInt64]] = [:]
    private var featuredIds: Set<UInt64> = []

    static let exactWeights = [100, 20, 10]
    static let prefixWeights = [60, 12, 5]
    /// Shorter query words match whole words only (a one-letter prefix matches nearly everything).
    static let minimumPrefix = 2

    public init(_ apps: [StorefrontApp] = []) {
        var words = Set<String>()
        for app in apps {
            let indexed = Self.indexWords(app)
            wordsByApp[app.appleItemId] = indexed
            let slot = claimSlot(app.appleItemId)
            for (tier, list) in indexed.enumerated() {
                for word in list {
                    postings[tier][word, default: []].insert(slot)
                    words.insert(word)
                }
            }
            var stored = app
            stored.description = ""
            self.apps[app.appleItemId] = stored
            if app.featuredOrder != nil { featuredIds.insert(app.appleItemId) }
        }
        vocabulary = words.sorted()
        let all = self.apps
        byName = all.keys.sorted { Self.nameLess(all, $0, $1) }
        newest = all.keys.sorted { Self.newerLess(all, $0, $1) }
        for id in byName {
            if let category = self.apps[id]?.category { byCategory[category, default: []].append(id) }
        }
        rank()
    }

    public var count: Int { apps.count }

    /// The featured apps, by `featuredOrder` then name.
    public var featured: [StorefrontApp] {
        featuredIds.compactMap { apps[$0] }.sorted {
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
            if apps[id] != nil { remove(id) }
            if let app { insert(app) }
        }
        rank()
    }

    /// The ids matching `query`, best first; empty for a query without words.
    public func search(_ query: String) -> [UInt64] {
        let terms = Array(Set(Self.words(query)).prefix(8))
        guard !terms.isEmpty, !idAt.isEmpty else { return [] }
        // Flat arrays by slot: a word shared by every app costs one pass, no hashing per app.
        var total = [Int32](repeating: 0, count: idAt.count)
        var matched = [UInt8](repeating: 0, count: idAt.count)
        var candidates: [Int32] = []
        for (termIndex, term) in terms.enumerated() {
            var best = [Int32](repeating: 0, count: idAt.count)
            var touched: [Int32] = []
            func add(_ slots: Set<Int32>?, _ weight: Int32) {
                guard let slots else { return }
                for slot in slots where matched[Int(slot)] == termIndex {
                    let old = best[Int(slot)]
                    if old == 0 { touched.append(slot) }
                    if old < weight { best[Int(slot)] = weight }
                }
            }
            for tier in 0..<3 { add(postings[tier][term], Int32(Self.exactWeights[tier])) }
            if term.count >= Self.minimumPrefix {
                var index = Self.lowerBound(vocabulary, term)
                while index < vocabulary.count, vocabulary[index].hasPrefix(term) {
                    let word = vocabulary[index]
                    if word != term {
                        for tier in 0..<3 { add(postings[tier][word], Int32(Self.prefixWeights[tier])) }
                    }
                    index += 1
                }
            }
            for slot in touched {
                matched[Int(slot)] += 1
                total[Int(slot)] += best[Int(slot)]
            }
            candidates = touched
            if candidates.isEmpty { return [] }
        }
        // A name that is the query, or starts with it, comes first: a range of `byName`.
        let whole = Self.fold(query)
        var index = lowerBound(byName: whole)
        while index < byName.count, let app = apps[byName[index]], app.sortKey.hasPrefix(whole) {
            if let slot = slotOf[app.appleItemId] { total[Int(slot)] += app.sortKey == whole ? 1_000 : 200 }
            index += 1
        }
        // One integer per match: score, then name order.
        var keys = candidates.map { slot in (Int(total[Int(slot)]) << 32) | Int(Int32.max - rankAt[Int(slot)]) }
        var slotByKey: [Int: Int32] = [:]
        slotByKey.reserveCapacity(candidates.count)
        for (key, slot) in zip(keys, candidates) { slotByKey[key] = slot }
        keys.sort(by: >)
        return keys.compactMap { slotByKey[$0].map { idAt[Int($0)] } }
    }

    // MARK: Words

    /// Case- and diacritic-folded text, its words separated by single spaces.
    public static func fold(_ text: String) -> String {
        words(text).joined(separator: " ")
    }

    /// The folded words of `text` (letters and digits; everything else separates).
    public static func words(_ text: String) -> [String] {
        var words: [String] = []
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            var current: [UInt8] = []
            for byte in text.utf8 {
                switch byte {
                case 0x30...0x39, 0x61...0x7A: current.append(byte)
                case 0x41...0x5A: current.append(byte + 0x20)
                default:
                    if !current.isEmpty { words.append(String(decoding: current, as: UTF8.self)); current.removeAll(keepingCapacity: true) }
                }
            }
            if !current.isEmpty { words.append(String(decoding: current, as: UTF8.self)) }
            return words
        }
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil).lowercased()
        var current = String.UnicodeScalarView()
        for scalar in folded.unicodeScalars {
            if scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
                current.append(scalar)
            } else if !current.isEmpty {
                words.append(String(current))
                current = String.UnicodeScalarView()
            }
        }
        if !current.isEmpty { words.append(String(current)) }
        return words
    }

    static func indexWords(_ app: StorefrontApp) -> [[String]] {
        func unique(_ texts: String...) -> [String] {
            var seen = Set<String>()
            return texts.flatMap(words).filter { seen.insert($0).inserted }
        }
        return [unique(app.name), unique(app.developer, app.subtitle), unique(app.description)]
    }

    // MARK: Maintenance

    private mutating func remove(_ id: UInt64) {
        guard apps[id] != nil else { return }
        let slot = slotOf[id]
        for (tier, list) in (wordsByApp[id] ?? []).enumerated() {
            for word in list {
                guard let slot else { continue }
                postings[tier][word]?.remove(slot)
                if postings[tier][word]?.isEmpty == true { postings[tier][word] = nil }
            }
        }
        wordsByApp[id] = nil
        if let slot {
            slotOf[id] = nil
            freeSlots.append(slot)
        }
        let all = apps
        Self.removeFrom(&byName, id) { Self.nameLess(all, $0, $1) }
        Self.removeFrom(&newest, id) { Self.newerLess(all, $0, $1) }
        if let category = apps[id]?.category {
            Self.removeFrom(&byCategory[category, default: []], id) { Self.nameLess(all, $0, $1) }
            if byCategory[category]?.isEmpty == true { byCategory[category] = nil }
        }
        featuredIds.remove(id)
        apps[id] = nil
    }

    private mutating func insert(_ app: StorefrontApp) {
        let id = app.appleItemId
        let indexed = Self.indexWords(app)
        wordsByApp[id] = indexed
        let slot = claimSlot(id)
        for (tier, list) in indexed.enumerated() {
            for word in list {
                if postings[0][word] == nil, postings[1][word] == nil, postings[2][word] == nil {
                    let at = Self.lowerBound(vocabulary, word)
                    if at == vocabulary.count || vocabulary[at] != word { vocabulary.insert(word, at: at) }
                }
                postings[tier][word, default: []].insert(slot)
            }
        }
        var stored = app
        stored.description = ""
        apps[id] = stored
        let all = apps
        Self.insertInto(&byName, id) { Self.nameLess(all, $0, $1) }
        Self.insertInto(&newest, id) { Self.newerLess(all, $0, $1) }
        if let category = app.category { Self.insertInto(&byCategory[category, default: []], id) { Self.nameLess(all, $0, $1) } }
        if app.featuredOrder != nil { featuredIds.insert(id) }
    }

    private mutating func claimSlot(_ id: UInt64) -> Int32 {
        if let slot = slotOf[id] { return slot }
        let slot: Int32
        if let free = freeSlots.popLast() {
            slot = free
            idAt[Int(slot)] = id
        } else {
            slot = Int32(idAt.count)
            idAt.append(id)
        }
        slotOf[id] = slot
        return slot
    }

    private mutating func rank() {
        rankAt = [Int32](repeating: Int32.max, count: idAt.count)
        for (position, id) in byName.enumerated() {
            if let slot = slotOf[id] { rankAt[Int(slot)] = Int32(position) }
        }
    }

    private func rank(of id: UInt64) -> Int32 {
        slotOf[id].map { rankAt[Int($0)] } ?? Int32.max
    }

    /// The first position in `byName` whose folded name is not below `key`.
    private func lowerBound(byName key: String) -> Int {
        var low = 0, high = byName.count
        while low < high {
            let middle = (low + high) / 2
            if (apps[byName[middle]]?.sortKey ?? "") < key { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private static func nameLess(_ apps: [UInt64: StorefrontApp], _ a: UInt64, _ b: UInt64) -> Bool {
        let (left, right) = (apps[a]?.sortKey ?? "", apps[b]?.sortKey ?? "")
        return left != right ? left < right : a < b
    }

    private static func newerLess(_ apps: [UInt64: StorefrontApp], _ a: UInt64, _ b: UInt64) -> Bool {
        let (left, right) = (apps[a]?.latestRelease ?? .distantPast, apps[b]?.latestRelease ?? .distantPast)
        return left != right ? left > right : nameLess(apps, a, b)
    }

    /// `id` must still be in `apps` with the values it was inserted with.
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

    static func lowerBound(_ sorted: [String], _ value: String) -> Int {
        var low = 0, high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }
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

    public init(database: SoukDatabase, refreshInterval: Duration = .seconds(1), logger: Logger? = nil) {
        self.database = database
        self.refreshInterval = refreshInterval
        self.logger = logger ?? database.logger
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
            let catalog = StorefrontCatalog(Array(try await load(only: nil).values))
            state.withLock { $0.catalog = catalog; $0.revision = latest }
            logger.info("storefront index loaded", metadata: [
                "apps": "\(catalog.count)", "revision": "\(latest)", "took": "\(ContinuousClock.now - started)",
            ])
        }
    }

    /// The available apps (all, or those among `ids`) with their latest release, in two queries.
    private func load(only ids: Set<UInt64>?) async throws -> [UInt64: StorefrontApp] {
        if let ids, ids.isEmpty { return [:] }
        var appQuery = database.sql.select()
            .columns("id", "apple_item_id", "name", "subtitle", "description", "developer_name", "icon_sha256", "prices",
                     "requires_entitlement", "category", "featured_order", "media")
            .from("apps").where("availability", .equal, Availability.available.rawValue)
        if let ids { appQuery = appQuery.where("apple_item_id", .in, ids.map(AppleIDColumn.store)) }
        var byRowID: [UUID: StorefrontApp] = [:]
        for row in try await appQuery.all() {
            byRowID[try row.decode(column: "id", as: UUID.self)] = StorefrontApp(
                appleItemId: AppleIDColumn.load(try row.decode(column: "apple_item_id", as: Int64.self)),
                name: try row.decode(column: "name", as: String.self), subtitle: try row.decode(column: "subtitle", as: String.self),
                developer: try row.decode(column: "developer_name", as: String.self),
                description: try row.decode(column: "description", as: String.self),
                category: try row.decode(column: "category", as: String?.self),
                featuredOrder: try row.decode(column: "featured_order", as: Int?.self),
                iconSHA256: try row.decode(column: "icon_sha256", as: String?.self),
                mediaJSON: try row.decode(column: "media", as: String?.self),
                pricing: AppPricing(prices: AppPricing.decode(try row.decode(column: "prices", as: String?.self)),
                                    requiresEntitlement: try row.decode(column: "requires_entitlement", as: String?.self)))
        }
        if !byRowID.isEmpty {
            var versions = database.sql.select().column("app_id").column("release_date").from("app_versions")
                .where("withdrawn_at", .is, SQLLiteral.null)
            if ids != nil { versions = versions.where("app_id", .in, Array(byRowID.keys)) }
            for row in try await versions.all() {
                let appID = try row.decode(column: "app_id", as: UUID.self)
                let released = try row.decode(column: "release_date", as: Date.self)
                if let current = byRowID[appID], (current.latestRelease ?? .distantPast) < released { byRowID[appID]?.latestRelease = released }
            }
        }
        return Dictionary(byRowID.values.map { ($0.appleItemId, $0) }, uniquingKeysWith: { first, _ in first })
    }
}
