import Foundation
import Logging
import SoukCore
import Synchronization

/// The commerce catalogs in memory for the hot paths (the product lists, the feed, the purchase and
/// entitlement checks), per app.
///
/// An app's catalog is read once, then at most once per `refreshInterval` its revision is checked
/// (one single-row query) and the catalog read again only when it moved: every process sees an
/// applied catalog within `refreshInterval` (`SOUK_CATALOG_REFRESH_MS`, one second by default);
/// `.zero` checks on every call (tests). A change made by this process is seen at once after
/// `invalidate(app:)`. When the database cannot answer the check, the catalog held is answered
/// (the lists keep working through an outage); an app never read fails as the database does.
public final class CommerceCatalogCache: Sendable {
    private struct Entry {
        var state: CommerceCatalogState?
        var checked: ContinuousClock.Instant
    }

    public let store: CommerceCatalogStore
    let refreshInterval: Duration
    let logger: Logger
    private let entries = Mutex<[String: Entry]>([:])
    /// Unknown apps are remembered too (a 404 costs no query); this bounds how many.
    static let capacity = 10_000

    public init(store: CommerceCatalogStore, refreshInterval: Duration = .seconds(1), logger: Logger) {
        self.store = store
        self.refreshInterval = refreshInterval
        self.logger = logger
    }

    /// The app's catalog, or nil when it has none.
    public func state(app: String) async throws -> CommerceCatalogState? {
        let now = ContinuousClock.now
        let held = entries.withLock { $0[app] }
        if let held, refreshInterval > .zero, now - held.checked < refreshInterval { return held.state }
        let fresh: CommerceCatalogState?
        do {
            if let held, let state = held.state {
                // Usually nothing changed: compare revisions before reading the whole catalog.
                fresh = try await store.revision(app: app) == state.revision ? state : try await store.state(app: app)
            } else {
                fresh = try await store.state(app: app)
            }
        } catch {
            guard let held, held.state != nil else { throw error }
            logger.warning("commerce catalog check failed; answering the catalog held", metadata: ["app": "\(app)", "error": "\(error)"])
            return held.state
        }
        entries.withLock { entries in
            if entries[app] == nil, entries.count >= Self.capacity {
                entries = entries.filter { $0.value.state != nil }
                if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            }
            entries[app] = Entry(state: fresh, checked: now)
        }
        return fresh
    }

    /// Forgets the app's catalog, so the next call reads it (after this process applied a change).
    public func invalidate(app: String) {
        _ = entries.withLock { $0.removeValue(forKey: app) }
    }

    /// Applies a catalog through the store (with `owner`, as that organisation's: `CommerceCatalogStore.apply`)
    /// and forgets the app's cached copy.
    public func apply(_ catalog: CommerceCatalog, dryRun: Bool = false, owner: String? = nil) async throws -> CatalogApplyReport {
        let report = try await store.apply(catalog, dryRun: dryRun, owner: owner)
        if report.applied { invalidate(app: catalog.app) }
        return report
    }
}
