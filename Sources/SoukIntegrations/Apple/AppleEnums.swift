import Foundation

// Apple's enumerations in signed data (spec §4.1). Payloads keep each value raw, as Apple sends
// it, and offer these typed views on top: a value Apple adds later decodes, is kept and shows as
// `nil` here instead of failing the whole payload (as Apple's own library does).

/// `environment`: where the data was made. Only `Production` and `Sandbox` are signed by Apple.
public enum AppleEnvironment: String, Sendable, Hashable, CaseIterable {
    case production = "Production"
    case sandbox = "Sandbox"
    case xcode = "Xcode"
    case localTesting = "LocalTesting"
}

/// A transaction's `type`.
public enum AppleTransactionType: String, Sendable, Hashable, CaseIterable {
    case autoRenewableSubscription = "Auto-Renewable Subscription"
    case nonConsumable = "Non-Consumable"
    case consumable = "Consumable"
    case nonRenewingSubscription = "Non-Renewing Subscription"
}

/// `inAppOwnershipType`.
public enum AppleOwnershipType: String, Sendable, Hashable, CaseIterable {
    case purchased = "PURCHASED"
    case familyShared = "FAMILY_SHARED"
}

/// `transactionReason`.
public enum AppleTransactionReason: String, Sendable, Hashable, CaseIterable {
    case purchase = "PURCHASE"
    case renewal = "RENEWAL"
}

/// `revocationReason`: 0 another reason, 1 an issue in the app.
public enum AppleRevocationReason: Int, Sendable, Hashable, CaseIterable {
    case other = 0
    case appIssue = 1
}

/// `offerType`: 1 introductory, 2 promotional, 3 offer code, 4 win-back.
public enum AppleOfferType: Int, Sendable, Hashable, CaseIterable {
    case introductory = 1
    case promotional = 2
    case offerCode = 3
    case winBack = 4
}

/// `offerDiscountType`.
public enum AppleOfferDiscountType: String, Sendable, Hashable, CaseIterable {
    case freeTrial = "FREE_TRIAL"
    case payAsYouGo = "PAY_AS_YOU_GO"
    case payUpFront = "PAY_UP_FRONT"
    case oneTime = "ONE_TIME"
}

/// `revocationType`.
public enum AppleRevocationType: String, Sendable, Hashable, CaseIterable {
    case refundFull = "REFUND_FULL"
    case refundProrated = "REFUND_PRORATED"
    case familyRevoke = "FAMILY_REVOKE"
}

/// A transaction's `billingPlanType`.
public enum AppleBillingPlanType: String, Sendable, Hashable, CaseIterable {
    case billedUpfront = "BILLED_UPFRONT"
    case monthly = "MONTHLY"
}

/// Renewal info's `autoRenewStatus`: 0 off, 1 on.
public enum AppleAutoRenewStatus: Int, Sendable, Hashable, CaseIterable {
    case off = 0
    case on = 1
}

/// Renewal info's `expirationIntent`.
public enum AppleExpirationIntent: Int, Sendable, Hashable, CaseIterable {
    case customerCancelled = 1
    case billingError = 2
    case customerDidNotConsentToPriceIncrease = 3
    case productNotAvailable = 4
    case other = 5
}

/// Renewal info's `priceIncreaseStatus`.
public enum ApplePriceIncreaseStatus: Int, Sendable, Hashable, CaseIterable {
    case customerHasNotResponded = 0
    case customerConsentedOrWasNotifiedWithoutNeedingConsent = 1
}

/// A notification's `data.status`: the subscription's status.
public enum AppleSubscriptionStatus: Int, Sendable, Hashable, CaseIterable {
    case active = 1
    case expired = 2
    case billingRetry = 3
    case billingGracePeriod = 4
    case revoked = 5
}

/// App Store Server Notifications V2 `notificationType`.
public enum AppleNotificationType: String, Sendable, Hashable, CaseIterable {
    case subscribed = "SUBSCRIBED"
    case didChangeRenewalPref = "DID_CHANGE_RENEWAL_PREF"
    case didChangeRenewalStatus = "DID_CHANGE_RENEWAL_STATUS"
    case offerRedeemed = "OFFER_REDEEMED"
    case didRenew = "DID_RENEW"
    case expired = "EXPIRED"
    case didFailToRenew = "DID_FAIL_TO_RENEW"
    case gracePeriodExpired = "GRACE_PERIOD_EXPIRED"
    case priceIncrease = "PRICE_INCREASE"
    case refund = "REFUND"
    case refundDeclined = "REFUND_DECLINED"
    case consumptionRequest = "CONSUMPTION_REQUEST"
    case renewalExtended = "RENEWAL_EXTENDED"
    case revoke = "REVOKE"
    case test = "TEST"
    case renewalExtension = "RENEWAL_EXTENSION"
    case refundReversed = "REFUND_REVERSED"
    case externalPurchaseToken = "EXTERNAL_PURCHASE_TOKEN"
    case oneTimeCharge = "ONE_TIME_CHARGE"
    /// The customer withdrew the consent to share consumption data (Send Consumption Information).
    case rescindConsent = "RESCIND_CONSENT"
    /// Advanced Commerce API: a subscription's metadata changed.
    case metadataUpdate = "METADATA_UPDATE"
    /// Advanced Commerce API: a subscription migrated to it.
    case migration = "MIGRATION"
    /// Advanced Commerce API: a subscription's price changed.
    case priceChange = "PRICE_CHANGE"
}

/// App Store Server Notifications V2 `subtype`.
public enum AppleNotificationSubtype: String, Sendable, Hashable, CaseIterable {
    case initialBuy = "INITIAL_BUY"
    case resubscribe = "RESUBSCRIBE"
    case downgrade = "DOWNGRADE"
    case upgrade = "UPGRADE"
    case autoRenewEnabled = "AUTO_RENEW_ENABLED"
    case autoRenewDisabled = "AUTO_RENEW_DISABLED"
    case voluntary = "VOLUNTARY"
    case billingRetry = "BILLING_RETRY"
    case priceIncrease = "PRICE_INCREASE"
    case gracePeriod = "GRACE_PERIOD"
    case pending = "PENDING"
    case accepted = "ACCEPTED"
    case billingRecovery = "BILLING_RECOVERY"
    case productNotForSale = "PRODUCT_NOT_FOR_SALE"
    case summary = "SUMMARY"
    case failure = "FAILURE"
    case unreported = "UNREPORTED"
}
