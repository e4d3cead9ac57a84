import Foundation
import SoukCore
import SoukIntegrations
import SoukStore

/// Refund requests and what a refund took back (docs/stores.md, "Refund requests").
extension AppleNotificationHandler {
    /// Records a CONSUMPTION_REQUEST for the consumption worker (which answers it within Apple's 12
    /// hours) when the app asks people's consent (`sendConsumptionInfo`); without it the request is
    /// recorded as not answered. A redelivered notification records nothing new. Returns the summary.
    package func recordRefundRequest(_ effect: AppleNotificationEffect, notification: StoredStoreNotification,
                             catalog: CommerceCatalogState?) async throws -> String {
        guard let consumption else { return "refund request not recorded (no consumption queue)" }
        guard let purchase = effect.purchase else { return "refund request without a transaction, not recorded" }
        let consent = catalog?.catalog.stores?.apple?.sendConsumptionInfo == true
        let environment = effect.environment ?? purchase.environment
        let record = AppleConsumptionRequestRecord(
            app: notification.received.app, notificationId: effect.notificationUUID, environment: environment,
            transactionId: purchase.transactionId, originalTransactionId: purchase.originalTransactionId,
            productId: purchase.storeProductId, reason: effect.consumptionRequestReason, requestedAt: effect.signedDate,
            deadline: effect.signedDate.addingTimeInterval(AppleConsumptionStore.window),
            status: consent ? .pending : .notAnswered,
            detail: consent ? nil : "the app does not ask consent (stores.apple_store.sendConsumptionInfo is off)")
        let recorded = try await consumption.record(record)
        let reason = effect.consumptionRequestReason.map { " (\($0))" } ?? ""
        switch (recorded, consent) {
        case (false, _): return "refund request\(reason) already recorded"
        case (true, true): return "refund request\(reason) recorded, answer due by \(Self.time(record.deadline))"
        case (true, false): return "refund request\(reason) recorded, not answered (no consent flag)"
        }
    }

    /// What the notification states for the purchase's Apple columns.
    package static func terms(of effect: AppleNotificationEffect) -> ApplePurchaseTerms {
        var terms = ApplePurchaseTerms(billingPlanType: effect.billingPlanType)
        if let refund = effect.refund {
            terms.refundType = refund.revocationType ?? (refund.partial ? AppleRevocationType.refundProrated.rawValue : nil)
            terms.refundShare = refund.percentage
            terms.refundedAmount = refund.amount
        }
        if let commitment = effect.commitmentInfo {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            encoder.dateEncodingStrategy = .millisecondsSince1970
            terms.commitmentInfo = (try? encoder.encode(commitment)).map { String(decoding: $0, as: UTF8.self) }
        }
        return terms
    }

    package static func time(_ date: Date) -> String {
        date.ISO8601Format()
    }
}
