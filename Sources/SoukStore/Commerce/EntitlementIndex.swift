import Foundation
import Logging
import SQLKit
import SoukCore
import Synchronization

/// The granted purchases of each (account, app) asked about, in memory, so that the entitlement
/// check — asked every time an app wants to know "may this person watch this?" — costs no
/// database round trip, however many purchases exist (docs/performance.md).
///
/// An entry is read on first use (one indexed query, `PurchaseStore.grantedRecords`) and kept until a write changes it:
/// - **this process's writes** forget it at once (`invalidate`, called by `PurchaseStore` after
///   its commit through `onChange`);
/// - **other processes' writes** are seen within `refreshInterval` (`SOUK_CATALOG_REFRESH_MS`, one
///   second by default): at most once per interval a request reads `commerce_revision` (one
///   single-row query) and, when it moved, the `commerce_changes` rows after the last revision
///   seen, and forgets the entries they name (everything, when rows were pruned or too many
///   changed). Requests never wait for that check once the first one ran; they are answered
///   from memory meanwhile (and through a database outage, for the entries held).
///
/// `refreshInterval: .zero` checks before every answer (tests). Entries are not time-bound: the
/// records do not change with time. At most `capacity` entries are held (`SOUK_ENTITLEMENT_CACHE_ENTRIES`):
/// when full, the least recently used one makes room (`SegmentedLRU`). `snapshot` keeps the engine's last answer with its entry until
/// the next instant it can change (`EntitlementEngine.nextChange`: a purchase starts, ends or is
/// revoked), the catalog's revision moves or other environments are asked, so an unchanged person
/// costs a dictionary lookup.
public final class EntitlementIndex: Sendable {
    struct Key: Hashable {
        var account: UUID
        var app: String
    }

    /// The engine's last answer for an entry, and what it holds for.
    struct Memo {
        var catalogRevision: Int?
        var environments: Set<CommerceEnvironment>
        var computedAt: Date
        var validUntil: Date?
        var snapshot: EntitlementSnapshot

        func answers(catalogRevision: Int?, environments: Set<CommerceEnvironment>, at now: Date) -> Bool {
            catalogRevision == self.catalogRevision && environments == self.environments && now >= computedAt
                && validUntil.map { now < $0 } ?? true
        }
    }

    struct Entry {
        var records: [PurchaseRecord]
        var memo: Memo?
    }

    private struct State {
        var entries: SegmentedLRU<Key, Entry>
        /// The last `commerce_revision` seen; nil before the first check.
        var revision: Int64?
        var lastCheck: ContinuousClock.Instant?
        var inFlight: Task<Void, any Error>?
        /// Moves with every invalidation: an entry read while it moved may be stale and is not kept.
        var generation: UInt64 = 0
        var loads = 0
        var evaluations = 0
    }

    let database: SoukDatabase
    let store: PurchaseStore
    let refreshInterval: Duration
    let capacity: Int
    let logger: Logger
    private let state: Mutex<State>

    /// More changes than this since the last check: forget everything rather than read them.
    static let incrementalLimit: Int64 = 5_000
    /// The change log keeps this many revisions; older rows are deleted now and then.
    static let changeLogLength: Int64 = 100_000
    private let pruner = ChangeLogPruner(table: "commerce_changes", length: changeLogLength)

    public init(database: SoukDatabase, refreshInterval: Duration = .seconds(1), capacity: Int = 100_000, logger: Logger? = nil) {
        self.database = database
        self.store = PurchaseStore(database: database)
        self.refreshInterval = refreshInterval
        self.capacity = capacity
        self.logger = logger ?? database.logger
        self.state = Mutex(State(entries: SegmentedLRU(capacity: capacity)))
    }

    /// The account's granted purchases in the app.
    public func records(account: UUID, app: String) async throws -> [PurchaseRecord] {
        try await entry(Key(account: account, app: app)).entry.records
    }

    /// `EntitlementEngine.evaluate` of the account's purchases in the app, kept while it cannot change.
    public func snapshot(account: UUID, app: String, catalog: CommerceCatalogState?, environments: Set<CommerceEnvironment>,
                         at now: Date) async throws -> EntitlementSnapshot {
        let key = Key(account: account, app: app)
        let (entry, generation) = try await entry(key)
        if let memo = entry.memo, memo.answers(catalogRevision: catalog?.revision, environments: environments, at: now) {
            return memo.snapshot
        }
        let snapshot = EntitlementEngine.evaluate(entry.records, catalog: catalog, environments: environments, at: now)
        state.withLock { $0.evaluations += 1 }
        let memo = Memo(catalogRevision: catalog?.revision, environments: environments, computedAt: now,
                        validUntil: EntitlementEngine.nextChange(entry.records, catalog: catalog, environments: environments, after: now),
                        snapshot: snapshot)
        state.withLock { state in
            // Kept only with the records it was computed from.
            guard state.generation == generation else { return }
            state.entries.update(forKey: key) { $0.memo = memo }
        }
        return snapshot
    }

    /// The entry (read when not held), and the generation it belongs to.
    private func entry(_ key: Key) async throws -> (entry: Entry, generation: UInt64) {
        if refreshInterval == .zero {
            try await refresh()
        } else if let first = startCheckIfDue() {
            // Only the very first check is waited for.
            try await first.value
        }
        return try await load(key)
    }

    /// Starts a check of the change log when one is due; answers it when it is the first check,
    /// which the caller waits for (nothing held can be trusted before it).
    private func startCheckIfDue() -> Task<Void, any Error>? {
        let now = ContinuousClock.now
        return state.withLock { state -> Task<Void, any Error>? in
            if let inFlight = state.inFlight { return state.revision == nil ? inFlight : nil }
            if state.revision != nil, let last = state.lastCheck, now - last < refreshInterval { return nil }
            let task = Task { try await self.performRefresh() }
            state.inFlight = task
            return state.revision == nil ? task : nil
        }
    }

    /// Forgets what is held for the account in the app (this process changed its purchases).
    public func invalidate(account: UUID, app: String) {
        state.withLock { state in
            state.generation &+= 1
            state.entries.removeValue(forKey: Key(account: account, app: app))
        }
    }

    /// Reads the change log now and forgets what changed (waits for a check already running first).
    public func refresh() async throws {
        // A check that started before this call may have read the revision before a change made
        // just before it: wait for it, then run one of our own.
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

    /// Entries held, hits, misses and evictions so far (an entry answered from memory is a hit).
    public var statistics: CacheStatistics { state.withLock { $0.entries.statistics } }

    /// Entries held, the last revision seen, how many entries were read from the database and how
    /// many snapshots computed so far.
    public var status: (entries: Int, revision: Int64?, loads: Int, evaluations: Int) {
        state.withLock { ($0.entries.count, $0.revision, $0.loads, $0.evaluations) }
    }

    private func load(_ key: Key) async throws -> (entry: Entry, generation: UInt64) {
        let (held, generation) = state.withLock { state in (state.entries.value(forKey: key), state.generation) }
        if let held { return (held, generation) }
        let loaded = Entry(records: try await store.grantedRecords(account: key.account, app: key.app))
        state.withLock { state in
            state.loads += 1
            // An invalidation while we read may concern this entry: answer, but do not keep it
            // (the generation has moved on, so no memo of it is kept either).
            guard state.generation == generation else { return }
            state.entries.insert(loaded, forKey: key)
        }
        return (loaded, generation)
    }

    private func performRefresh() async throws {
        defer { state.withLock { $0.inFlight = nil; $0.lastCheck = .now } }
        let known = state.withLock { $0.revision }
        let latest = try await store.revision()
        guard let known else {
            state.withLock { $0.revision = latest }
            return
        }
        guard latest != known else { return }
        let changed = try await changedKeys(after: known, upTo: latest)
        state.withLock { state in
            state.generation &+= 1
            if let changed {
                for key in changed { state.entries.removeValue(forKey: key) }
            } else {
                state.entries.removeAll()
            }
            state.revision = latest
        }
        try await pruner.pruneIfDue(latest: latest, on: database.sql)
    }

    /// The entries changed after `known`, or nil when everything must be forgotten (too many
    /// changes, pruned rows, a database whose counter went back).
    private func changedKeys(after known: Int64, upTo latest: Int64) async throws -> Set<Key>? {
        guard latest > known, latest - known <= Self.incrementalLimit else { return nil }
        let rows = try await database.sql.raw("""
            SELECT revision, account_id, app FROM commerce_changes
            WHERE revision > \(bind: known) AND revision <= \(bind: latest)
            """).all()
        // Every revision has exactly one row: a gap means rows were pruned.
        guard rows.count == Int(latest - known) else { return nil }
        var keys: Set<Key> = []
        for row in rows {
            keys.insert(Key(account: try row.decode(column: "account_id", as: UUID.self), app: try row.decode(column: "app", as: String.self)))
        }
        return keys
    }
}
