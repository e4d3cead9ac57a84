import Foundation
import SoukCore
import SoukTestSupport
import Testing
@testable import SoukIntegrations

/// What reconciliation asks Apple: the subscription's latest transaction with its state, and the
/// customer's whole history and refunds, paged by `revision`; faults throw, never read as "no change".
@Suite struct AppleReconcileTests {
    typealias Base = AppStoreServerAPIVerifierTests
    static let app = Base.app
    static let day = Base.day

    @Test func theCurrentSubscriptionIsItsLatestTransactionWithItsState() async throws {
        let chain = try AppleTestChain.make()
        let fake = FakeAppStoreServerAPI(chain: chain, bundleId: Self.app)
        let first = AppleTestTransaction(bundleId: Self.app, productId: Base.monthly, type: .autoRenewable, transactionId: "2000000000005001",
                                         environment: "Production", purchaseDate: Date() - 40 * Self.day, expiresDate: Date() - 10 * Self.day)
        let renewal = AppleTestTransaction(bundleId: Self.app, productId: Base.monthly, type: .autoRenewable, transactionId: "2000000000005002",
                                           originalTransactionId: "2000000000005001", environment: "Production",
                                           purchaseDate: Date() - 10 * Self.day, expiresDate: Date() + 20 * Self.day)
        fake.add(first)
        fake.add(renewal)
        fake.setSubscription(originalTransactionId: "2000000000005001", status: 1,
                             renewal: AppleTestRenewalInfo(originalTransactionId: "2000000000005001", productId: Base.monthly, autoRenewStatus: 0))
        try await FakeAppStoreServerAPI.run(production: fake, sandbox: nil) { production, sandbox in
            let verifier = try Base.verifier(chain, fake, production: production, sandbox: sandbox)
            guard case .verified(let current) = try await verifier.currentSubscription(app: Self.app, originalTransactionId: "2000000000005001",
                                                                                      environment: .production) else {
                Issue.record("not verified"); return
            }
            #expect(current.transactionId == "2000000000005002" && current.originalTransactionId == "2000000000005001")
            #expect(current.lifecycle?.state == .cancelled && current.lifecycle?.willRenew == false)
            // Without the key: no verdict to apply (reconciliation stops asking), never a refusal of the purchase.
            let keyless = try Base.verifier(chain, fake, production: production, sandbox: sandbox, key: false)
            guard case .refused(let refusal) = try await keyless.currentSubscription(app: Self.app, originalTransactionId: "2000000000005001",
                                                                                    environment: .production) else {
                Issue.record("keyless answered"); return
            }
            #expect(refusal.code == "store-not-configured")
        }
    }

    @Test func theCustomersHistoryAndRefundsAreReadPageByPage() async throws {
        let chain = try AppleTestChain.make()
        let fake = FakeAppStoreServerAPI(chain: chain, bundleId: Self.app, pageSize: 2)
        let ids = (0..<5).map { "200000000000600\($0)" }
        for (index, id) in ids.enumerated() {
            fake.add(AppleTestTransaction(bundleId: Self.app, productId: Base.monthly, type: .autoRenewable, transactionId: id,
                                          originalTransactionId: "2000000000006000", environment: "Production",
                                          purchaseDate: Date() - Double(150 - 30 * index) * Self.day,
                                          expiresDate: Date() - Double(120 - 30 * index) * Self.day))
        }
        var refunded = AppleTestTransaction(bundleId: Self.app, productId: Base.monthly, type: .autoRenewable, transactionId: ids[4],
                                            originalTransactionId: "2000000000006000", environment: "Production",
                                            purchaseDate: Date() - 30 * Self.day, expiresDate: Date())
        refunded.revocationDate = Date() - Self.day
        refunded.revocationReason = 0
        fake.update(refunded)
        try await FakeAppStoreServerAPI.run(production: fake, sandbox: nil) { production, sandbox in
            let verifier = try Base.verifier(chain, fake, production: production, sandbox: sandbox)
            let history = try await verifier.customerHistory(app: Self.app, transactionId: ids[0], environment: .production)
            #expect(history.prefix(5).map(\.transactionId) == ids)
            #expect(history.count == 6 && history[5].transactionId == ids[4] && history[5].revocationDate != nil)
            let keyless = try Base.verifier(chain, fake, production: production, sandbox: sandbox, key: false)
            await #expect(throws: StoreFault.self) {
                try await keyless.customerHistory(app: Self.app, transactionId: ids[0], environment: .production)
            }
        }
        // Apple down: a fault, not an empty history.
        let verifier = try Base.verifier(chain, fake, production: "http://127.0.0.1:9", sandbox: "http://127.0.0.1:9")
        await #expect(throws: StoreFault.self) {
            try await verifier.customerHistory(app: Self.app, transactionId: ids[0], environment: .production)
        }
    }
}
