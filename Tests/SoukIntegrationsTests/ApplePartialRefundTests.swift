import Foundation
import SoukCore
import SoukTestSupport
import Testing
@testable import SoukIntegrations

/// Refunds as Apple states them since 2025 (`revocationType`, `revocationPercentage`) and the
/// billing plan of a transaction (`billingPlanType`, `commitmentInfo`): a prorated refund records
/// its amount and leaves access; a full refund ends it.
@Suite struct ApplePartialRefundTests {
    typealias Base = AppleNotificationInterpreterTests
    static let signed = Base.signed

    static func refund(_ chain: AppleTestChain, type: String?, percentage: Int?, plan: String? = nil) -> AppleTestNotification {
        var transaction = AppleTestTransaction(
            bundleId: Base.app, productId: "com.example.reader.coins", type: .consumable, transactionId: "2000000000020002",
            purchaseDate: signed - 10 * Base.day, signedDate: signed - 60, quantity: 1, revocationDate: signed - 3600, revocationReason: 0,
            price: 9990)
        transaction.revocationType = type
        transaction.revocationPercentage = percentage
        transaction.billingPlanType = plan
        if plan == "MONTHLY" {
            transaction.commitmentInfo = AppleTestCommitmentInfo(billingPeriodNumber: 2, totalBillingPeriods: 12,
                                                                 commitmentExpiresDate: signed + 300 * Base.day, commitmentPrice: 119_880)
        }
        return AppleTestNotification(type: "REFUND", notificationUUID: "refund-\(type ?? "none")-\(percentage ?? -1)",
                                     data: .init(environment: "Production", appAppleId: Base.appAppleId, bundleId: Base.app,
                                                 signedTransactionInfo: chain.signTransaction(transaction)),
                                     signedDate: signed)
    }

    static func effect(_ notification: AppleTestNotification, chain: AppleTestChain) async throws -> AppleNotificationEffect {
        let verifier = try AppleSignedDataVerifier(additionalRootCertificates: [chain.rootDER])
        let payload = try await Base.verified(notification, chain: chain, verifier: verifier)
        return try await AppleNotificationInterpreter.interpret(payload, verifier: verifier).get()
    }

    @Test func aProratedRefundRecordsItsAmountAndKeepsAccess() async throws {
        let chain = try AppleTestChain.make()
        let effect = try await Self.effect(Self.refund(chain, type: "REFUND_PRORATED", percentage: 40_000), chain: chain)
        let purchase = try #require(effect.purchase)
        #expect(purchase.revocationDate == nil && purchase.revocationReason == nil)
        #expect(effect.refund == AppleRefundShare(revocationType: "REFUND_PRORATED", percentage: 40_000, amount: 3996, currency: "USD", partial: true))
        #expect(effect.summary == "REFUND → purchase; partial refund of 40 %, access kept")
    }

    @Test func aFullRefundEndsAccess() async throws {
        let chain = try AppleTestChain.make()
        for (type, percentage) in [("REFUND_FULL", 100_000), ("REFUND_FULL", nil)] as [(String?, Int?)] {
            let effect = try await Self.effect(Self.refund(chain, type: type, percentage: percentage), chain: chain)
            #expect(effect.purchase?.revocationDate == Self.signed - 3600)
            #expect(effect.refund?.partial == false && effect.refund?.amount == 9990)
        }
        // Without a type, a share below 100 % is prorated.
        let untyped = try await Self.effect(Self.refund(chain, type: nil, percentage: 25_500), chain: chain)
        #expect(untyped.purchase?.revocationDate == nil && untyped.refund?.amount == 2547)
    }

    @Test func theBillingPlanAndCommitmentAreRead() async throws {
        let chain = try AppleTestChain.make()
        let effect = try await Self.effect(Self.refund(chain, type: "REFUND_FULL", percentage: 100_000, plan: "MONTHLY"), chain: chain)
        #expect(effect.billingPlanType == "MONTHLY")
        #expect(effect.commitmentInfo == AppleTransactionCommitmentInfo(billingPeriodNumber: 2, totalBillingPeriods: 12,
                                                                        commitmentExpiresDate: Self.signed + 300 * Base.day, commitmentPrice: 119_880))
    }

    @Test func reconciliationLeavesAProratedRefundsAccess() {
        var transaction = AppleTransactionPayload()
        transaction.revocationDate = Self.signed
        transaction.rawRevocationType = "REFUND_PRORATED"
        transaction.revocationPercentage = 50_000
        transaction.price = 1000
        #expect(transaction.isPartialRefund && transaction.refundedAmount == 500)
        transaction.rawRevocationType = "FAMILY_REVOKE"
        #expect(!transaction.isPartialRefund)
        #expect(AppleRefundShare.percent(67_932) == "67.932 %" && AppleRefundShare.percent(40_000) == "40 %"
                && AppleRefundShare.percent(15) == "0.015 %")
    }
}
