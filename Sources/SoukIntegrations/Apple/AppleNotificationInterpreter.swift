import Foundation
import SoukCore

/// What one verified notification means for Souk.
public struct AppleNotificationEffect: Sendable, Equatable {
    public var notificationUUID: String
    /// `notificationType` as Apple sent it.
    public var type: String
    public var subtype: String?
    /// When Apple signed the notification: notifications about one purchase are applied in this order.
    public var signedDate: Date
    public var environment: CommerceEnvironment?
    public var appAppleId: Int64?
    public var bundleId: String?
    /// The purchase as it stands after this notification (transaction + renewal info → lifecycle), nil for
    /// types with no transaction (TEST, summary types, unknown types).
    public var purchase: VerifiedPurchase?
    /// REFUND_REVERSED: the revocation is taken back (purchase.revocationDate nil and this flag set).
    public var reinstates: Bool
    /// For people and logs: "DID_FAIL_TO_RENEW/GRACE_PERIOD → grace_period".
    public var summary: String
    /// Whether Souk knows the type (unknown types are stored and logged, never a crash).
    public var known: Bool
    /// What a refund or revocation took back (kept on the purchase); nil for other notifications.
    public var refund: AppleRefundShare?
    /// The transaction's `billingPlanType` and `commitmentInfo` (kept on the purchase).
    public var billingPlanType: String?
    public var commitmentInfo: AppleTransactionCommitmentInfo?
    /// CONSUMPTION_REQUEST's `consumptionRequestReason`.
    public var consumptionRequestReason: String?

    public init(notificationUUID: String, type: String, subtype: String?, signedDate: Date, environment: CommerceEnvironment?,
                appAppleId: Int64?, bundleId: String?, purchase: VerifiedPurchase?, reinstates: Bool, summary: String, known: Bool) {
        self.notificationUUID = notificationUUID
        self.type = type
        self.subtype = subtype
        self.signedDate = signedDate
        self.environment = environment
        self.appAppleId = appAppleId
        self.bundleId = bundleId
        self.purchase = purchase
        self.reinstates = reinstates
        self.summary = summary
        self.known = known
    }
}

/// A refund's extent as Apple states it on the transaction.
public struct AppleRefundShare: Sendable, Equatable {
    /// `REFUND_FULL`, `REFUND_PRORATED`, `FAMILY_REVOKE` (raw), when Apple says.
    public var revocationType: String?
    /// Milliunits of a percent (100000 is all), when Apple says.
    public var percentage: Int?
    /// Milli-units of `currency`.
    public var amount: Int64?
    public var currency: String?
    /// Access is kept (a prorated refund).
    public var partial: Bool

    public init(revocationType: String?, percentage: Int?, amount: Int64?, currency: String?, partial: Bool) {
        self.revocationType = revocationType
        self.percentage = percentage
        self.amount = amount
        self.currency = currency
        self.partial = partial
    }

    /// The share a transaction states, nil when it states no refund.
    public init?(_ transaction: AppleTransactionPayload) {
        guard transaction.revocationDate != nil || transaction.rawRevocationType != nil else { return nil }
        self.init(revocationType: transaction.rawRevocationType, percentage: transaction.revocationPercentage,
                  amount: transaction.refundedAmount, currency: transaction.currency, partial: transaction.isPartialRefund)
    }
}

/// Reads App Store Server Notifications V2 into the lifecycle of spec §5. The notification itself
/// must already be verified (`AppleSignedDataVerifier.verifyNotification`, which checks the app
/// and, in production, `appAppleId`); the transaction and renewal info inside it are JWS of their
/// own and are verified here, each at its own `signedDate`, for the notification's app and
/// environment. The interpretation depends only on the notification (its `signedDate` is "now"),
/// so a replayed or late notification reads the same way every time.
public enum AppleNotificationInterpreter {
    /// Verifies signedTransactionInfo / signedRenewalInfo inside an already verified notification (at
    /// their signedDate) and maps type+subtype+status to the lifecycle of spec §5.
    public static func interpret(_ notification: AppleNotificationPayload,
                                 verifier: AppleSignedDataVerifier) async -> Result<AppleNotificationEffect, AppleVerificationFailure> {
        guard let uuid = notification.notificationUUID, !uuid.isEmpty, let signedDate = notification.signedDate,
              let rawType = notification.rawNotificationType, !rawType.isEmpty else {
            return .failure(.init(.malformedJWS, "the notification lacks notificationType, notificationUUID or signedDate"))
        }
        let type = AppleNotificationType(rawValue: rawType)
        let subtype = notification.rawSubtype
        let app = appOf(notification)
        var effect = AppleNotificationEffect(
            notificationUUID: uuid, type: rawType, subtype: subtype, signedDate: signedDate,
            environment: app.environment.flatMap(CommerceEnvironment.init(rawValue:)), appAppleId: app.appAppleId,
            bundleId: app.bundleId, purchase: nil, reinstates: type == .refundReversed, summary: "", known: type != nil)

        guard let type else {
            effect.summary = label(rawType, subtype) + " → unknown type, stored"
            return .success(effect)
        }
        effect.consumptionRequestReason = notification.data?.consumptionRequestReason
        guard let data = notification.data, let signedTransaction = data.signedTransactionInfo, let bundleId = data.bundleId else {
            effect.summary = label(rawType, subtype) + (type == .test ? " → answered" : " → no transaction")
            return .success(effect)
        }
        let environments: Set<CommerceEnvironment> = effect.environment.map { [$0] } ?? [.production, .sandbox]

        let transaction: AppleTransactionPayload
        switch await verifier.verifyTransaction(signedTransaction, bundleId: bundleId, environments: environments) {
        case .invalid(let failure): return .failure(failure)
        case .valid(let payload): transaction = payload
        }
        var renewal: AppleRenewalInfoPayload?
        if let signedRenewal = data.signedRenewalInfo {
            switch await verifier.verifyRenewalInfo(signedRenewal, environments: environments) {
            case .invalid(let failure): return .failure(failure)
            case .valid(let payload): renewal = payload
            }
        }
        guard case .verified(var purchase) = AppleStoreVerifier.purchase(from: transaction) else {
            return .failure(.init(.malformedJWS, "the notification's transaction lacks transactionId, productId, purchaseDate, signedDate, bundleId or environment"))
        }
        // The statement is as recent as the notification that carries it.
        purchase.signedDate = max(purchase.signedDate, signedDate)

        effect.billingPlanType = transaction.rawBillingPlanType
        effect.commitmentInfo = transaction.commitmentInfo
        switch type {
        case .refund, .revoke:
            // A prorated refund gives back part of the price; the customer keeps what was bought.
            effect.refund = AppleRefundShare(transaction) ?? (type == .refund ? AppleRefundShare(
                revocationType: nil, percentage: nil, amount: transaction.price, currency: transaction.currency, partial: false) : nil)
            if !transaction.isPartialRefund { purchase.revocationDate = transaction.revocationDate ?? signedDate }
        case .refundReversed:
            purchase.revocationDate = nil
            purchase.revocationReason = nil
        default:
            break
        }
        let status = data.rawStatus ?? derivedStatus(type, subtype: notification.subtype)
        var transactionNow = transaction
        transactionNow.revocationDate = purchase.revocationDate
        if var lifecycle = AppleLifecycle.lifecycle(transaction: transactionNow, renewal: renewal, status: status, now: signedDate) {
            // Renewal info may be missing; the subtype still says which way auto-renew went.
            if renewal?.rawAutoRenewStatus == nil {
                switch notification.subtype {
                case .autoRenewDisabled where lifecycle.state == .active:
                    lifecycle.state = .cancelled
                    lifecycle.willRenew = false
                case .autoRenewEnabled where lifecycle.state == .cancelled || lifecycle.state == .active:
                    lifecycle.state = .active
                    lifecycle.willRenew = true
                default: break
                }
            }
            if purchase.revocationDate != nil { lifecycle.state = .revoked; lifecycle.willRenew = false; lifecycle.graceExpiresDate = nil; lifecycle.recheckAt = nil }
            purchase.lifecycle = lifecycle
            effect.summary = label(rawType, subtype) + " → " + lifecycle.state.rawValue
        } else {
            effect.summary = label(rawType, subtype) + " → " + (purchase.revocationDate != nil ? "revoked" : type == .refundReversed ? "reinstated" : "purchase")
        }
        if let refund = effect.refund, refund.partial {
            effect.summary += "; partial refund" + (refund.percentage.map { " of " + AppleRefundShare.percent($0) } ?? "") + ", access kept"
        }
        effect.purchase = purchase
        return .success(effect)
    }

    /// The subscription status a notification implies when its `data.status` is absent (spec §5):
    /// nil when the type says nothing definite (the dates decide then).
    public static func derivedStatus(_ type: AppleNotificationType, subtype: AppleNotificationSubtype?) -> Int? {
        let status: AppleSubscriptionStatus? = switch type {
        case .subscribed, .didRenew, .offerRedeemed, .renewalExtended: .active
        case .expired: .expired
        case .didFailToRenew: subtype == .gracePeriod ? .billingGracePeriod : .billingRetry
        case .gracePeriodExpired: .billingRetry
        case .refund, .revoke: .revoked
        default: nil
        }
        return status?.rawValue
    }

    static func label(_ type: String, _ subtype: String?) -> String {
        subtype.map { "\(type)/\($0)" } ?? type
    }

    /// The app and environment the notification names, whichever object carries them.
    static func appOf(_ notification: AppleNotificationPayload) -> (bundleId: String?, appAppleId: Int64?, environment: String?) {
        if let data = notification.data { return (data.bundleId, data.appAppleId, data.rawEnvironment) }
        if let summary = notification.summary { return (summary.bundleId, summary.appAppleId, summary.rawEnvironment) }
        if let token = notification.externalPurchaseToken {
            let sandbox = token.externalPurchaseId?.hasPrefix("SANDBOX") == true
            return (token.bundleId, token.appAppleId, sandbox ? AppleEnvironment.sandbox.rawValue : AppleEnvironment.production.rawValue)
        }
        return (nil, nil, nil)
    }
}

extension AppleRefundShare {
    /// Milliunits of a percent for people: 40000 → "40 %", 67932 → "67.932 %".
    public static func percent(_ milliunits: Int) -> String {
        let whole = milliunits / 1000, fraction = milliunits % 1000
        guard fraction != 0 else { return "\(whole) %" }
        var digits = String(fraction)
        digits = String(repeating: "0", count: 3 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return "\(whole).\(digits) %"
    }
}
