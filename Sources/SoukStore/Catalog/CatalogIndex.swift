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
        var apps: [UInt64: CatalogApp] = [:]
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

    public init(database: SoukDatabase, refreshInterval: Duration = .seconds(1), logger: Logger? = nil) {
        self.database = database
        self.refreshInterval = refreshInterval
        self.logger = logger ?? database.logger
    }

    /// The apps among `ids` that exist (unknown ids are absent).
    public func apps(_ ids: [UInt64]) async throws -> [UInt64: CatalogApp] {
        try await ensureFresh()
        return state.withLock { state in
            var found: [UInt64: CatalogApp] = [:]
            for id in ids where found[id] == nil {
                if let app = state.apps[id] { found[id] = app }
            }
            return found
        }
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
            state.withLock { state in
                for id in changed { state.apps[id] = loaded[id] }
                state.revision = latest
            }
        } else {
            let started = ContinuousClock.now
            let loaded = try await load(only: nil)
            state.withLock { state in
                state.apps = loaded
                state.revision = latest
            }
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

    /// Apps with their versions: all of them (`only: nil`) or just `only`, in two queries.
    private func load(only ids: Set<UInt64>?) async throws -> [UInt64: CatalogApp] {
        if let ids, ids.isEmpty { return [:] }
        var appQuery = database.sql.select().columns("id", "apple_item_id", "bundle_id", "access", "availability", "prices",
                                                     "requires_entitlement").from("apps")
        if let ids { appQuery = appQuery.where("apple_item_id", .in, ids.map(AppleIDColumn.store)) }
        let appRows = try await appQuery.all()
        var byRowID: [UUID: (item: UInt64, bundleId: String, access: AccessPolicy, availability: Availability, pricing: AppPricing)] = [:]
        byRowID.reserveCapacity(appRows.count)
        for row in appRows {
            byRowID[try row.decode(column: "id", as: UUID.self)] = (
                AppleIDColumn.load(try row.decode(column: "apple_item_id", as: Int64.self)),
                try row.decode(column: "bundle_id", as: String.self),
                AccessPolicy(rawValue: try row.decode(column: "access", as: String.self)) ?? .account,
                Availability(rawValue: try row.decode(column: "availability", as: String.self)) ?? .takenDown,
                AppPricing(prices: AppPricing.decode(try row.decode(column: "prices", as: String?.self)),
                           requiresEntitlement: try row.decode(column: "requires_entitlement", as: String?.self)))
        }
        var versionQuery = database.sql.select()
            .columns("app_id", "apple_version_id", "bundle_version", "short_version_string", "platforms", "minimum_os", "release_date")
            .column("withdrawn_at")
            .from("app_versions")
        if ids != nil { versionQuery = versionQuery.where("app_id", .in, Array(byRowID.keys)) }
        var versions: [UUID: [CatalogVersion]] = [:]
        var withdrawn: [UUID: [CatalogVersion]] = [:]
        if !byRowID.isEmpty {
            for row in try await versionQuery.all() {
                let appID = try row.decode(column: "app_id", as: UUID.self)
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
                    versions[appID, default: []].append(version)
                } else {
                    withdrawn[appID, default: []].append(version)
                }
            }
        }
        var apps: [UInt64: CatalogApp] = [:]
        apps.reserveCapacity(byRowID.count)
        for (rowID, app) in byRowID {
            apps[app.item] = CatalogApp(appleItemId: app.item, bundleId: app.bundleId, access: app.access,
                                        availability: app.availability, versions: versions[rowID] ?? [],
                                        withdrawnVersions: withdrawn[rowID] ?? [], pricing: app.pricing)
        }
        return apps
    }
}
