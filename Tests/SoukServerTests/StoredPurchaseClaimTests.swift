import Foundation
@testable import SoukApp
@testable import SoukServer
import SoukCore
import SoukStore
import SoukTestSupport
import Testing

/// The claim that re-reads a stored purchase is built from what was verified and stored: an Apple
/// subscription is asked about by its original transaction id with no receipt (the App Store Server
/// API looks it up), a one-time purchase by its own transaction id, and a sandbox buyer is asked about in Sandbox.
@Suite struct StoredPurchaseClaimTests {
    typealias F = CommercePurchaseFixture

    @Test(arguments: TestBackend.available)
    func appleRecheckClaimUsesTheStoredIdsAndNoReceipt(backend: TestBackend) async throws {
        try await F.with(backend) { f in
            let renewal = f.transaction("reader.monthly", id: "2000000000000002", original: "2000000000000001")
            #expect(try await f.buy("reader.monthly", as: f.alice, renewal).status.code < 300)
            let stored = try #require(try await f.runtime.purchases.list(app: F.app).first)
            let claim = try #require(stored.recheckClaim(accountIsSandbox: false))
            #expect(claim.store == .appleStore && claim.app == F.app && claim.receipt.isEmpty)
            #expect(claim.transactionId == "2000000000000001")
            #expect(claim.storeProductId == "com.example.reader.monthly" && claim.productType == .autoRenewable)
            #expect(!claim.accountIsSandbox)
            #expect(stored.recheckClaim(accountIsSandbox: true)?.accountIsSandbox == true)
            let pass = f.transaction("reader.pass.30d", id: "3000000000000001")
            #expect(try await f.buy("reader.pass.30d", as: f.bob, pass).status.code < 300)
            let bought = try #require(try await f.runtime.purchases.list(app: F.app).first { $0.productId == "reader.pass.30d" })
            let bookClaim = try #require(bought.recheckClaim(accountIsSandbox: false))
            #expect(bookClaim.transactionId == "3000000000000001" && bookClaim.productType == .nonRenewing && bookClaim.receipt.isEmpty)
        }
    }
}
