import Foundation
import SoukCore

/// Apple's words for a subscription's state (a transaction, its renewal info, the status of the App
/// Store Server API or of a notification) in Souk's one vocabulary (spec §5). Shared by the
/// verifier, the notification interpreter and reconciliation, so the three never disagree.
public enum AppleLifecycle {
    /// How often Souk asks again about a subscription in billing retry: Apple keeps retrying for up
    /// to 60 days and sends DID_RENEW when it recovers; the re-check covers a lost notification.
    public static let billingRetryRecheck: TimeInterval = 12 * 3600

    /// The lifecycle of an auto-renewable subscription; nil for every other type.
    ///
    /// `status` is Apple's subscription status (1 active, 2 expired, 3 billing retry, 4 grace
    /// period, 5 revoked). Without one (a status Apple added later, or none known) the state is
    /// read from the dates as of `now`: revoked when revoked, active (or cancelled when auto-renew
    /// is off) before the expiry, grace period while `gracePeriodExpiresDate` is ahead, billing
    /// retry while renewal info says so, expired otherwise.
    public static func lifecycle(transaction: AppleTransactionPayload, renewal: AppleRenewalInfoPayload?, status: Int?,
                                 now: Date) -> StoreLifecycle? {
        guard transaction.type == .autoRenewableSubscription else { return nil }
        let autoRenewOn = renewal?.rawAutoRenewStatus.map { $0 == AppleAutoRenewStatus.on.rawValue }
        var state: SubscriptionState
        switch status.flatMap(AppleSubscriptionStatus.init(rawValue:)) {
        case .active: state = .active
        case .expired: state = .expired
        case .billingRetry: state = .billingRetry
        case .billingGracePeriod: state = .gracePeriod
        case .revoked: state = .revoked
        case nil: state = stateFromDates(transaction: transaction, renewal: renewal, now: now)
        }
        if state == .active, autoRenewOn == false { state = .cancelled }

        let willRenew: Bool? = switch state {
        case .expired, .revoked: false
        case .cancelled: false
        default: autoRenewOn
        }
        let graceExpiresDate = state == .gracePeriod ? renewal?.gracePeriodExpiresDate : nil
        let recheckAt: Date? = switch state {
        case .gracePeriod: graceExpiresDate
        case .billingRetry: now + billingRetryRecheck
        default: nil
        }
        return StoreLifecycle(state: state, willRenew: willRenew, graceExpiresDate: graceExpiresDate,
                              periodType: periodType(offerType: transaction.rawOfferType, discountType: transaction.rawOfferDiscountType),
                              autoRenewStoreProductId: renewal?.autoRenewProductId, recheckAt: recheckAt)
    }

    /// How the current period was paid for: offerType 1 (introductory) is a trial when its
    /// discount is FREE_TRIAL and intro otherwise (data from before Apple added
    /// `offerDiscountType` reads as intro); 2 promotional, 3 offer code and 4 win-back are
    /// promotional; none is normal.
    public static func periodType(offerType: Int?, discountType: String?) -> PeriodType {
        switch offerType.flatMap(AppleOfferType.init(rawValue:)) {
        case .introductory: discountType == AppleOfferDiscountType.freeTrial.rawValue ? .trial : .intro
        case .promotional, .offerCode, .winBack: .promotional
        case nil: offerType == nil ? .normal : .promotional
        }
    }

    static func stateFromDates(transaction: AppleTransactionPayload, renewal: AppleRenewalInfoPayload?, now: Date) -> SubscriptionState {
        if transaction.revocationDate != nil { return .revoked }
        if let expires = transaction.expiresDate, expires > now { return .active }
        if let grace = renewal?.gracePeriodExpiresDate, grace > now { return .gracePeriod }
        if renewal?.isInBillingRetryPeriod == true { return .billingRetry }
        return .expired
    }
}
