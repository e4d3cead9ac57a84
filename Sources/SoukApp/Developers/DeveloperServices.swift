import Foundation
import SoukCore
import SoukStore

/// What the developer operations use: the database, the blob store, the in-app catalogs and the
/// two settings that shape an upload. One value per server, passed to each operation.
package struct DeveloperServices: Sendable {
    package let database: SoukDatabase
    package let blobs: BlobStore
    package let commerceCatalogs: CommerceCatalogCache
    /// The purchase store that tells this process's entitlement index what each write changed.
    package let purchases: PurchaseStore
    /// Where uploads and package imports put their temporary files.
    package let workDir: String
    /// `reviewNewVersions`: a developer's upload waits in review.
    package let reviewNewVersions: Bool
    /// `commissionPercent`: the marketplace's share in a payout statement, unless the organisation has its own.
    package let commissionPercent: Int
    package let now: @Sendable () -> Date

    package init(runtime: SoukRuntime, now: @escaping @Sendable () -> Date) {
        database = runtime.database
        blobs = runtime.blobs
        commerceCatalogs = runtime.commerceCatalogs
        purchases = runtime.purchases
        workDir = runtime.config.workDir
        reviewNewVersions = runtime.config.reviewNewVersions
        commissionPercent = runtime.config.commissionPercent
        self.now = now
    }

    package var directory: DeveloperDirectory { DeveloperDirectory(database: database, now: now) }
    package var catalog: CatalogStore { CatalogStore(database: database) }
    package var audit: AuditLog { AuditLog(database: database, now: now) }
    package var importer: PackageImporter { PackageImporter(database: database, blobs: blobs, workArea: workDir) }
    package var grants: EntitlementGrantStore { EntitlementGrantStore(purchases: purchases) }
    package var accountTokens: AccountTokenStore { AccountTokenStore(database: database, now: now) }
    package var catalogReviews: CatalogReviewStore { CatalogReviewStore(database: database, now: now) }
    /// The operations the developer API and the CLI use: the console's keys, uploads and grants go
    /// through them too.
    package var operations: DeveloperOperations {
        DeveloperOperations(database: database, importer: importer, catalogs: commerceCatalogs, purchases: purchases,
                            reviewNewVersions: reviewNewVersions, now: now)
    }
    package var statements: PayoutStatements { PayoutStatements(database: database, defaultCommissionPercent: commissionPercent) }
    package var ownership: DeveloperOwnership { DeveloperOwnership(directory: directory, catalog: catalog, catalogs: commerceCatalogs.store) }
    /// The sales metrics of the apps an actor reaches, totals in `reportingCurrency`.
    package func metrics(reportingCurrency: String) -> DeveloperMetrics {
        DeveloperMetrics(ownership: ownership, database: database, reportingCurrency: reportingCurrency)
    }
}
