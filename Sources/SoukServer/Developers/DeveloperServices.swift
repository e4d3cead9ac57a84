import Foundation
import SoukCore
import SoukStore

/// What the developer operations use: the database, the blob store, the in-app catalogs and the
/// two settings that shape an upload. One value per server, passed to each operation.
struct DeveloperServices: Sendable {
    let database: SoukDatabase
    let blobs: BlobStore
    let commerceCatalogs: CommerceCatalogCache
    /// The purchase store that tells this process's entitlement index what each write changed.
    let purchases: PurchaseStore
    /// Where uploads and package imports put their temporary files.
    let workDir: String
    /// `reviewNewVersions`: a developer's upload waits in review.
    let reviewNewVersions: Bool
    let now: @Sendable () -> Date

    init(runtime: SoukRuntime, now: @escaping @Sendable () -> Date) {
        database = runtime.database
        blobs = runtime.blobs
        commerceCatalogs = runtime.commerceCatalogs
        purchases = runtime.purchases
        workDir = runtime.config.workDir
        reviewNewVersions = runtime.config.reviewNewVersions
        self.now = now
    }

    var directory: DeveloperDirectory { DeveloperDirectory(database: database, now: now) }
    var catalog: CatalogStore { CatalogStore(database: database) }
    var audit: AuditLog { AuditLog(database: database, now: now) }
    var importer: PackageImporter { PackageImporter(database: database, blobs: blobs, workArea: workDir) }
    var grants: EntitlementGrantStore { EntitlementGrantStore(purchases: purchases) }
    var accountTokens: AccountTokenStore { AccountTokenStore(database: database, now: now) }
    var catalogReviews: CatalogReviewStore { CatalogReviewStore(database: database, now: now) }
    var ownership: DeveloperOwnership { DeveloperOwnership(directory: directory, catalog: catalog, catalogs: commerceCatalogs.store) }
}
