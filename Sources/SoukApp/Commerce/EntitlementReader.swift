import Foundation
import SoukCore
import SoukStore

/// A person's entitlements in one app now (spec §5): their granted purchases (from memory,
/// `EntitlementIndex`; one indexed query on a miss) through `EntitlementEngine`, in the
/// environments their account sees.
package struct EntitlementReader: Sendable {
    package let index: EntitlementIndex
    package let now: @Sendable () -> Date

    package init(index: EntitlementIndex, now: @escaping @Sendable () -> Date) {
        self.index = index
        self.now = now
    }

    package func snapshot(_ buyer: PurchaseIntakeService.Buyer, catalog: CommerceCatalogState) async throws -> EntitlementSnapshot {
        try await index.snapshot(account: buyer.account, app: catalog.app, catalog: catalog,
                                 environments: EntitlementEngine.environments(accountIsSandbox: buyer.sandbox,
                                                                              allowSandbox: catalog.catalog.allowSandbox),
                                 at: now())
    }

    /// The environments the buyer sees, Production first.
    package func environments(_ buyer: PurchaseIntakeService.Buyer, catalog: CommerceCatalogState) -> [CommerceEnvironment] {
        let seen = EntitlementEngine.environments(accountIsSandbox: buyer.sandbox, allowSandbox: catalog.catalog.allowSandbox)
        return CommerceEnvironment.allCases.filter(seen.contains)
    }
}
