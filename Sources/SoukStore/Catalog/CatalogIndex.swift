import Foundation
import Logging
import SQLKit
import SoukCore
import Synchronization

/// The whole catalog in memory, so that the hot paths (update checks, license decisions) answer
/// without a database round trip, whatever the catalog's size.
///
/// Loaded in full on first use (two queries), then kept current from the catalog change log
/// (`catalog_revision` / `catalog_changes`, filled by database triggers): at most once per
/// `refreshInterval` a request checks the revision (one single-row query) and, when it moved,
/// reloads just the apps that changed. Requests never wait for that check once the index is
/// loaded: they are answered from the current copy while one refresh runs. Every process
/// therefore sees a change within about `refreshInterval` (one second by default).
/// `refreshInterval: .zero` makes every lookup check first (tests).
public final class CatalogIndex: Sendable {
    private struct State {
        var apps = PackedCatalogApps()
        var revision: Int64?
        var lastCheck: ContinuousClock.Instant?
        var inFlight: Task<Void, any Error>?
    }

    let database: SoukDatabase
    let refreshInterval: Duration
    let logger: Logger
    private let state = Mutex(State())

    /// More changed apps than this since the last check are read with a full reload.
    static let incrementalLimit = 2_000
    /// The change log keeps this many revisions; older rows are deleted now and then.
    static let changeLogLength: Int64 = 100_000
    private let pruner = ChangeLogPruner(table: "catalog_changes", length: changeLogLength)

    /// Apps read per query by a full load.
    let loadPageSize: Int

    public init(database: SoukDatabase, refreshInterval: Duration = .seconds(1), logger: Logger? = nil, loadPageSize: Int = 20_000) {
        self.database = database
        self.refreshInterval = refreshInterval
        self.logger = logger ?? database.logger
        self.loadPageSize = max(1, loadPageSize)
    }

    /// The apps among `ids` that exist (unknown ids are absent).
    public func apps(_ ids: [UInt64]) async throws -> [UInt64: CatalogApp] {
        try await ensureFresh()
        // A copy-on-write value: taken under the lock, decoded outside it.
        let packed = state.withLock { $0.apps }
        var found: [UInt64: CatalogApp] = [:]
        for id in ids where found[id] == nil {
            if let app = packed[id] { found[id] = app }
        }
        return found
    }

    public func app(_ id: UInt64) async throws -> CatalogApp? {
        try await apps([id])[id]
    }

    /// How many apps the index holds, and at which revision of the change log.
    public var status: (apps: Int, revision: Int64?) {
        state.withLock { ($0.apps.count, $0.revision) }
    }

    /// Waits for the first load; afterwards starts a refresh when one is due and returns at once.
    func ensureFresh(force: Bool = false) async throws {
        if force || refreshInterval == .zero {
            // A refresh that started before this call may miss a change made just before it:
            // wait for it, then run one of our own.
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
            if let inFlight = state.inFlight {
                return state.revision == nil ? inFlight : nil
            }
            if state.revision != nil, let last = state.lastCheck, now - last < refreshInterval { return nil }
            let task = Task { try await self.performRefresh() }
            state.inFlight = task
            return state.revision == nil ? task : nil
        }
        try await wait?.value
    }

    /// Brings the index up to the latest revision now (after a change this process made).
    public func refresh() async throws {
        try await ensureFresh(force: true)
    }

    private func performRefresh() async throws {
        defer { state.withLock { $0.inFlight = nil; $0.lastCheck = .now } }
        let known = state.withLock { $0.revision }
        let latest = try await currentRevision()
        if let known, latest == known { return }
        if let known, let changed = try await changedApps(after: known, upTo: latest) {
            let loaded = try await load(only: changed)
            // One refresh runs at a time: the value taken here is the one put back. Changed outside
            // the lock, so that requests holding the current copy never wait for the copy a change
            // makes of the packed bytes.
            var apps = state.withLock { $0.apps }
            for id in changed { apps[id] = loaded[id] }
            state.withLock { state in
                state.apps = apps
                state.revision = latest
            }
        } else {
            let started = ContinuousClock.now
            let loaded = try await loadAll()
            state.withLock { state in
                state.apps = loaded
                state.revision = latest
            }
            ReleaseFreeMemory.now()
            logger.info("catalog index loaded", metadata: [
                "apps": "\(loaded.count)", "revision": "\(latest)", "took": "\(ContinuousClock.now - started)",
            ])
        }
        try await pruner.pruneIfDue(latest: latest, on: database.sql)
    }

    private func currentRevision() async throws -> Int64 {
        try await Self.currentRevision(database)
    }

    /// The catalog's revision now (the storefront index reads it too).
    static func currentRevision(_ database: SoukDatabase) async throws -> Int64 {
        guard let row = try await database.sql.raw("SELECT value FROM catalog_revision WHERE id = 1").first() else {
            throw CatalogError.invalid("catalog_revision has no row; the database was not migrated by this version of Souk")
        }
        return try row.decode(column: "value", as: Int64.self)
    }

    private func changedApps(after known: Int64, upTo latest: Int64) async throws -> Set<UInt64>? {
        try await Self.changedApps(database, after: known, upTo: latest)
    }

    /// The apps changed after `known`, or nil when a full reload is cheaper or needed (the log was
    /// pruned). The storefront index follows the same change log.
    static func changedApps(_ database: SoukDatabase, after known: Int64, upTo latest: Int64) async throws -> Set<UInt64>? {
        guard latest > known, latest - known <= Int64(Self.incrementalLimit) else { return nil }
        let rows = try await database.sql.raw("""
            SELECT revision, apple_item_id FROM catalog_changes
            WHERE revision > \(bind: known) AND revision <= \(bind: latest) ORDER BY revision
            """).all()
        // Every revision has exactly one row: a gap means the rows were pruned.
        guard rows.count == Int(latest - known) else { return nil }
        var ids: Set<UInt64> = []
        for row in rows {
            if let item = try row.decodeNil(column: "apple_item_id") ? nil : row.decode(column: "apple_item_id", as: Int64.self) {
                ids.insert(AppleIDColumn.load(item))
            } else {
                return nil  // a change whose app could not be named: read everything
            }
        }
        return ids
    }

    /// Only released versions are offered or kept: one in review or rejected is as if absent.
    static let released = VersionReviewState.released.rawValue
    private static let appColumns = ["apple_item_id", "bundle_id", "access", "availability", "prices", "requires_entitlement"]
    private static let versionColumns = """
        a.apple_item_id AS apple_item_id, v.apple_version_id AS apple_version_id, v.bundle_version AS bundle_version,
        v.short_version_string AS short_version_string, v.platforms AS platforms, v.minimum_os AS minimum_os,
        v.release_date AS release_date, v.withdrawn_at AS withdrawn_at
        """

    /// Just the apps `ids` with their versions (those absent were deleted), in two queries.
    func load(only ids: Set<UInt64>) async throws -> [UInt64: CatalogApp] {
        if ids.isEmpty { return [:] }
        let stored = ids.map(AppleIDColumn.store)
        let appRows = try await database.sql.select().columns(Self.appColumns).from("apps").where("apple_item_id", .in, stored).all()
        let versionRows = try await database.sql.raw("""
            SELECT \(unsafeRaw: Self.versionColumns) FROM app_versions v JOIN apps a ON a.id = v.app_id
            WHERE v.review_state = \(bind: Self.released) AND a.apple_item_id IN (\(binds: stored))
            """).all()
        return Dictionary(try Self.apps(appRows, versionRows).map { ($0.appleItemId, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Apps from their rows and their versions' rows (`versionColumns`).
    private static func apps(_ appRows: [any SQLRow], _ versionRows: [any SQLRow]) throws -> [CatalogApp] {
        var versions: [UInt64: [CatalogVersion]] = [:]
        var withdrawn: [UInt64: [CatalogVersion]] = [:]
        for row in versionRows {
            let item = AppleIDColumn.load(try row.decode(column: "apple_item_id", as: Int64.self))
            let minimumOS = try row.decode(column: "minimum_os", as: [String: String].self)
            let version = CatalogVersion(
                appleVersionId: AppleIDColumn.load(try row.decode(column: "apple_version_id", as: Int64.self)),
                bundleVersion: try row.decode(column: "bundle_version", as: String.self),
                shortVersionString: try row.decode(column: "short_version_string", as: String.self),
                platforms: try row.decode(column: "platforms", as: [String].self).compactMap(Platform.init(rawValue:)),
                minimumOS: Dictionary(minimumOS.compactMap { key, value in
                    guard let platform = Platform(rawValue: key), let os = OSVersion(value) else { return nil }
                    return (platform, os)
                }, uniquingKeysWith: { first, _ in first }),
                releaseDate: try row.decode(column: "release_date", as: Date.self))
            if try row.decodeNil(column: "withdrawn_at") {
                versions[item, default: []].append(version)
            } else {
                withdrawn[item, default: []].append(version)
            }
        }
        return try appRows.map { row in
            let item = AppleIDColumn.load(try row.decode(column: "apple_item_id", as: Int64.self))
            return CatalogApp(appleItemId: item, bundleId: try row.decode(column: "bundle_id", as: String.self),
                              access: AccessPolicy(rawValue: try row.decode(column: "access", as: String.self)) ?? .account,
                              availability: Availability(rawValue: try row.decode(column: "availability", as: String.self)) ?? .takenDown,
                              versions: versions[item] ?? [], withdrawnVersions: withdrawn[item] ?? [],
                              pricing: AppPricing(prices: AppPricing.decode(try row.decode(column: "prices", as: String?.self)),
                                                  requiresEntitlement: try row.decode(column: "requires_entitlement", as: String?.self)))
        }
    }
}
