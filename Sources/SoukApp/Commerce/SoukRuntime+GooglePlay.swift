import Foundation
import SoukCore
import SoukIntegrations
import SoukStore

extension SoukRuntime {
    /// Google Play's voided purchases of every app with a catalog, read with the Google verifier of
    /// `verifiers` (nil when there is none); `holder` names this process in the lease table.
    public func googleVoidedPoller(verifiers: StoreVerifiers,
                                   holder: String = "serve-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8))",
                                   now: @escaping @Sendable () -> Date = { Date() }) -> GoogleVoidedPurchasesPoller? {
        guard let google = verifiers.verifier(for: .googlePlay) as? GooglePlayStoreVerifier else { return nil }
        let database = self.database
        return GoogleVoidedPurchasesPoller(google: google, positions: GoogleVoidedPositionStore(database: database), purchases: purchases,
                                           apps: { try await CommerceCatalogStore(database: database).apps() },
                                           lease: MaintenanceLease(database: database), storeStatus: StoreStatusStore(database: database),
                                           holder: holder, now: now, logger: logger)
    }

    /// Refunds of store purchases asked of the store (Google Play), with the Google verifier of `verifiers`.
    public func storeRefunds(verifiers: StoreVerifiers, now: @escaping @Sendable () -> Date = { Date() }) -> StoreRefunds {
        StoreOperations(runtime: self, verifiers: verifiers, now: now).refunds(verifiers: verifiers)
    }
}
