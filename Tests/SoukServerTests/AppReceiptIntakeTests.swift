import Foundation
import Hummingbird
import HummingbirdTesting
import SoukCore
import SoukIntegrations
import SoukStore
import SoukTestSupport
import Testing

/// `POST /commerce/<app>/transactions` with a StoreKit 1 app receipt as `receipt` (docs/commerce.md,
/// "App receipts"): verified, its in-app purchase looked up at the App Store Server API, recorded
/// like a signed transaction — and, as proof of possession, moved under the transfer policy.
@Suite struct AppReceiptIntakeTests {
    typealias F = CommercePurchaseFixture

    static func receipt(_ f: F, _ transaction: AppleTestTransaction, chain: AppleTestChain) throws -> String {
        try AppleTestReceipt(bundleId: F.app, inAppPurchases: [
            .init(productId: transaction.productId, transactionId: transaction.transactionId, purchaseDate: transaction.purchaseDate),
        ]).signed(by: chain)
    }

    @Test(arguments: TestBackend.available)
    func aVerifiedAppReceiptGrantsAndIsProofOfPossession(backend: TestBackend) async throws {
        try await PurchaseOwnershipTests.withAppStore(backend) { f, fake, chain in
            let bought = f.transaction("reader.pass.30d")
            fake.add(bought)
            let receipt = try Self.receipt(f, bought, chain: chain)
            let granted = try await f.post(f.event("reader.pass.30d", bought, receipt: receipt), as: f.alice)
            #expect(granted.status == .created)
            #expect(try await f.isEntitled(f.alice, to: "premium"))
            // The same again is the same payment (idempotent on the store's transaction id).
            let again = try await f.post(f.event("reader.pass.30d", bought, receipt: receipt), as: f.alice)
            #expect(again.status == .created)
            let samePayment = try F.paymentId(again) == F.paymentId(granted)
            #expect(samePayment)

            // Bob knows the id only: not his. Bob holds the receipt: proof of possession, it moves (policy transfer).
            let idOnly = try await f.post(f.event("reader.pass.30d", bought, receipt: ""), as: f.bob)
            #expect(idOnly.status == .unprocessableContent)
            #expect(try F.problemType(idOnly) == "urn:souk:problem:owned-by-another-account")
            #expect(try await f.post(f.event("reader.pass.30d", bought, receipt: receipt), as: f.bob).status == .created)
            #expect(try await f.isEntitled(f.bob, to: "premium"))
            #expect(!(try await f.isEntitled(f.alice, to: "premium")))
        }
    }

    @Test(arguments: TestBackend.available)
    func anAppReceiptThatDoesNotVerifyOrHoldsNothingIs422(backend: TestBackend) async throws {
        try await PurchaseOwnershipTests.withAppStore(backend) { f, fake, chain in
            let bought = f.transaction("reader.pass.30d")
            fake.add(bought)
            let strangers = try Self.receipt(f, bought, chain: try AppleTestChain.make())
            let truncated = try #require(Data(base64Encoded: try Self.receipt(f, bought, chain: chain))).prefix(300).base64EncodedString()
            let empty = try AppleTestReceipt(bundleId: F.app).signed(by: chain)
            for (receipt, type) in [(strangers, "invalid-receipt"), (truncated, "invalid-receipt"), (empty, "receipt-without-purchases")] {
                let refused = try await f.post(f.event("reader.pass.30d", bought, receipt: receipt), as: f.alice)
                #expect(refused.status == .unprocessableContent)
                #expect(try F.problemType(refused) == "urn:souk:problem:\(type)")
            }
            #expect(!(try await f.isEntitled(f.alice, to: "premium")))
            #expect(try await f.runtime.purchases.list(app: F.app).allSatisfy { $0.status != .granted })
        }
    }
}
