import Foundation
import SoukCore
import SoukTestSupport
import Testing
@testable import SoukIntegrations

/// Every App Store Server Notifications V2 type and subtype of spec §4.1 read into the lifecycle of
/// spec §5, from notifications signed like Apple's and verified first.
@Suite struct AppleNotificationInterpreterTests {
    static let app = "com.example.reader"
    static let appAppleId: Int64 = 1_234_567_890
    static let monthly = "com.example.reader.monthly"
    static let yearly = "com.example.reader.yearly"
    static let day: TimeInterval = 86_400
    /// When the notifications are signed.
    static let signed = Date(timeIntervalSince1970: 1_790_000_000)

    /// One notification and what it must mean.
    struct Row: Sendable, CustomTestStringConvertible {
        var type: String
        var subtype: String?
        var status: Int?
        /// Renewal info with this autoRenewStatus; nil: none sent.
        var autoRenew: Int? = 1
        var product: ProductType = .autoRenewable
        /// The transaction's period is over.
        var lapsed = false
        var revoked = false
        var grace = false
        var autoRenewProduct: String? = nil
        var offer: (type: Int, discount: String?)? = nil
        // Expected:
        var state: SubscriptionState?
        var purchase = true
        var revocation = false
        var reinstates = false
        var period: PeriodType = .normal
        var known = true

        var testDescription: String { AppleNotificationInterpreter.label(type, subtype) + (status.map { " status \($0)" } ?? "") }
    }

    static let rows: [Row] = [
        Row(type: "SUBSCRIBED", subtype: "INITIAL_BUY", status: 1, state: .active),
        Row(type: "SUBSCRIBED", subtype: "INITIAL_BUY", status: 1, offer: (1, "FREE_TRIAL"), state: .active, period: .trial),
        Row(type: "SUBSCRIBED", subtype: "INITIAL_BUY", status: 1, offer: (1, "PAY_AS_YOU_GO"), state: .active, period: .intro),
        Row(type: "SUBSCRIBED", subtype: "RESUBSCRIBE", status: 1, state: .active),
        Row(type: "SUBSCRIBED", subtype: "RESUBSCRIBE", status: nil, state: .active),
        Row(type: "DID_RENEW", subtype: nil, status: 1, state: .active),
        Row(type: "DID_RENEW", subtype: "BILLING_RECOVERY", status: 1, state: .active),
        Row(type: "DID_FAIL_TO_RENEW", subtype: nil, status: 3, lapsed: true, state: .billingRetry),
        Row(type: "DID_FAIL_TO_RENEW", subtype: nil, status: nil, lapsed: true, state: .billingRetry),
        Row(type: "DID_FAIL_TO_RENEW", subtype: "GRACE_PERIOD", status: 4, lapsed: true, grace: true, state: .gracePeriod),
        Row(type: "DID_FAIL_TO_RENEW", subtype: "GRACE_PERIOD", status: nil, lapsed: true, grace: true, state: .gracePeriod),
        Row(type: "GRACE_PERIOD_EXPIRED", subtype: nil, status: 3, lapsed: true, state: .billingRetry),
        Row(type: "GRACE_PERIOD_EXPIRED", subtype: nil, status: nil, lapsed: true, state: .billingRetry),
        Row(type: "EXPIRED", subtype: "VOLUNTARY", status: 2, autoRenew: 0, lapsed: true, state: .expired),
        Row(type: "EXPIRED", subtype: "BILLING_RETRY", status: 2, lapsed: true, state: .expired),
        Row(type: "EXPIRED", subtype: "PRICE_INCREASE", status: 2, autoRenew: 0, lapsed: true, state: .expired),
        Row(type: "EXPIRED", subtype: "PRODUCT_NOT_FOR_SALE", status: nil, lapsed: true, state: .expired),
        Row(type: "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_DISABLED", status: 1, autoRenew: 0, state: .cancelled),
        Row(type: "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_DISABLED", status: 1, autoRenew: nil, state: .cancelled),
        Row(type: "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_ENABLED", status: 1, autoRenew: 1, state: .active),
        Row(type: "DID_CHANGE_RENEWAL_PREF", subtype: "UPGRADE", status: 1, autoRenewProduct: yearly, state: .active),
        Row(type: "DID_CHANGE_RENEWAL_PREF", subtype: "DOWNGRADE", status: 1, autoRenewProduct: "com.example.reader.basic", state: .active),
        Row(type: "DID_CHANGE_RENEWAL_PREF", subtype: nil, status: 1, autoRenewProduct: monthly, state: .active),
        Row(type: "OFFER_REDEEMED", subtype: "INITIAL_BUY", status: 1, offer: (3, nil), state: .active, period: .promotional),
        Row(type: "OFFER_REDEEMED", subtype: "RESUBSCRIBE", status: 1, offer: (2, nil), state: .active, period: .promotional),
        Row(type: "OFFER_REDEEMED", subtype: "UPGRADE", status: 1, offer: (2, nil), state: .active, period: .promotional),
        Row(type: "OFFER_REDEEMED", subtype: "DOWNGRADE", status: 1, offer: (4, nil), state: .active, period: .promotional),
        Row(type: "OFFER_REDEEMED", subtype: nil, status: 1, offer: (2, nil), state: .active, period: .promotional),
        Row(type: "PRICE_INCREASE", subtype: "PENDING", status: 1, state: .active),
        Row(type: "PRICE_INCREASE", subtype: "ACCEPTED", status: 1, state: .active),
        Row(type: "REFUND", subtype: nil, status: 5, revoked: true, state: .revoked, revocation: true),
        Row(type: "REFUND", subtype: nil, status: nil, state: .revoked, revocation: true),
        Row(type: "REFUND", subtype: nil, status: nil, autoRenew: nil, product: .consumable, state: nil, revocation: true),
        Row(type: "REFUND_DECLINED", subtype: nil, status: 1, state: .active),
        Row(type: "REFUND_DECLINED", subtype: nil, status: nil, autoRenew: nil, product: .nonConsumable, state: nil),
        Row(type: "REFUND_REVERSED", subtype: nil, status: 1, revoked: true, state: .active, reinstates: true),
        Row(type: "REFUND_REVERSED", subtype: nil, status: nil, autoRenew: nil, product: .nonConsumable, revoked: true, state: nil, reinstates: true),
        Row(type: "REVOKE", subtype: nil, status: 5, revoked: true, state: .revoked, revocation: true),
        Row(type: "REVOKE", subtype: nil, status: nil, autoRenew: nil, product: .nonConsumable, state: nil, revocation: true),
        Row(type: "RENEWAL_EXTENDED", subtype: nil, status: 1, state: .active),
        Row(type: "RENEWAL_EXTENSION", subtype: "FAILURE", status: 1, state: .active),
        Row(type: "CONSUMPTION_REQUEST", subtype: nil, status: nil, autoRenew: nil, product: .consumable, state: nil),
        Row(type: "ONE_TIME_CHARGE", subtype: nil, status: nil, autoRenew: nil, product: .nonConsumable, state: nil),
        Row(type: "ONE_TIME_CHARGE", subtype: nil, status: nil, autoRenew: nil, product: .consumable, state: nil),
        Row(type: "RESCIND_CONSENT", subtype: nil, status: nil, autoRenew: nil, product: .consumable, state: nil),
        Row(type: "METADATA_UPDATE", subtype: nil, status: 1, state: .active),
        Row(type: "MIGRATION", subtype: nil, status: 1, state: .active),
        Row(type: "PRICE_CHANGE", subtype: nil, status: 1, state: .active),
        Row(type: "SOMETHING_APPLE_ADDS_LATER", subtype: "NEW_SUBTYPE", status: 1, state: nil, purchase: false, known: false),
    ]

    static func notification(_ row: Row, chain: AppleTestChain, environment: String = "Production") -> AppleTestNotification {
        var transaction = AppleTestTransaction(
            bundleId: app, productId: monthly, type: row.product, transactionId: "2000000000010002", originalTransactionId: "2000000000010001",
            environment: environment, purchaseDate: signed - (row.lapsed ? 40 : 10) * day, signedDate: signed - 60,
            expiresDate: row.product == .autoRenewable ? signed + (row.lapsed ? -10 : 20) * day : nil,
            revocationDate: row.revoked ? signed - 3600 : nil, revocationReason: row.revoked ? 0 : nil)
        if let offer = row.offer {
            transaction.offerType = offer.type
            transaction.offerDiscountType = offer.discount
        }
        var renewal: String?
        if let autoRenew = row.autoRenew, row.product == .autoRenewable {
            renewal = chain.sign(AppleTestRenewalInfo(originalTransactionId: "2000000000010001", productId: monthly,
                                                      autoRenewProductId: row.autoRenewProduct, autoRenewStatus: autoRenew,
                                                      environment: environment, signedDate: signed - 60,
                                                      gracePeriodExpiresDate: row.grace ? signed + 6 * day : nil,
                                                      isInBillingRetryPeriod: row.lapsed && autoRenew == 1 ? true : nil))
        }
        return AppleTestNotification(type: row.type, subtype: row.subtype, notificationUUID: "uuid-\(row.type)",
                                     data: .init(environment: environment, appAppleId: appAppleId, bundleId: app,
                                                 signedTransactionInfo: chain.signTransaction(transaction), signedRenewalInfo: renewal,
                                                 status: row.status),
                                     signedDate: signed)
    }

    static func verified(_ payload: AppleTestNotification, chain: AppleTestChain, verifier: AppleSignedDataVerifier) async throws -> AppleNotificationPayload {
        try #require(await verifier.verifyNotification(chain.sign(payload), bundleId: app, appAppleId: appAppleId,
                                                       environments: [.production, .sandbox]).payload)
    }

    @Test(arguments: rows)
    func everyTypeAndSubtypeMapsToTheLifecycle(_ row: Row) async throws {
        let chain = try AppleTestChain.make()
        let verifier = try AppleSignedDataVerifier(additionalRootCertificates: [chain.rootDER])
        let notification = try await Self.verified(Self.notification(row, chain: chain), chain: chain, verifier: verifier)
        let effect = try await AppleNotificationInterpreter.interpret(notification, verifier: verifier).get()

        #expect(effect.notificationUUID == "uuid-\(row.type)")
        #expect(effect.type == row.type && effect.subtype == row.subtype)
        #expect(effect.signedDate == Self.signed)
        #expect(effect.environment == .production && effect.appAppleId == Self.appAppleId && effect.bundleId == Self.app)
        #expect(effect.known == row.known)
        #expect(effect.reinstates == row.reinstates)
        guard row.purchase else {
            #expect(effect.purchase == nil)
            #expect(effect.summary == "SOMETHING_APPLE_ADDS_LATER/NEW_SUBTYPE → unknown type, stored")
            return
        }
        let purchase = try #require(effect.purchase)
        #expect(purchase.transactionId == "2000000000010002" && purchase.originalTransactionId == "2000000000010001")
        #expect(purchase.type == row.product)
        // The statement is as recent as the notification (ordering of out-of-order notifications).
        #expect(purchase.signedDate == Self.signed)
        if row.revocation {
            #expect(purchase.revocationDate == (row.revoked ? Self.signed - 3600 : Self.signed))
        } else {
            #expect(purchase.revocationDate == nil)
        }
        #expect(purchase.lifecycle?.state == row.state)
        if let state = row.state {
            let lifecycle = try #require(purchase.lifecycle)
            #expect(lifecycle.periodType == row.period)
            #expect(effect.summary == AppleNotificationInterpreter.label(row.type, row.subtype) + " → " + state.rawValue)
            #expect(lifecycle.graceExpiresDate == (state == .gracePeriod ? Self.signed + 6 * Self.day : nil))
            if let product = row.autoRenewProduct { #expect(lifecycle.autoRenewStoreProductId == product) }
            switch state {
            case .cancelled, .expired, .revoked: #expect(lifecycle.willRenew == false)
            case .active where row.autoRenew != nil: #expect(lifecycle.willRenew == true)
            default: break
            }
        }
    }

    @Test func spec41TypesAndSubtypesAllHaveARow() {
        let covered = Set(Self.rows.map(\.type))
        let withoutTransaction: Set<String> = ["TEST", "EXTERNAL_PURCHASE_TOKEN", "RENEWAL_EXTENSION"]
        for type in AppleNotificationType.allCases.map(\.rawValue) {
            #expect(covered.contains(type) || withoutTransaction.contains(type), "no row for \(type)")
        }
        let subtypes = Set(Self.rows.compactMap(\.subtype)).union(["SUMMARY", "UNREPORTED"])
        for subtype in AppleNotificationSubtype.allCases.map(\.rawValue) {
            #expect(subtypes.contains(subtype), "no row for subtype \(subtype)")
        }
    }

    @Test func testNotificationIsAnsweredWithoutAPurchase() async throws {
        let chain = try AppleTestChain.make()
        let verifier = try AppleSignedDataVerifier(additionalRootCertificates: [chain.rootDER])
        let test = AppleTestNotification(type: "TEST", notificationUUID: "test-1",
                                         data: .init(environment: "Sandbox", appAppleId: nil, bundleId: Self.app), signedDate: Self.signed)
        let verified = try await Self.verified(test, chain: chain, verifier: verifier)
        let effect = try await AppleNotificationInterpreter.interpret(verified, verifier: verifier).get()
        #expect(effect == AppleNotificationEffect(notificationUUID: "test-1", type: "TEST", subtype: nil, signedDate: Self.signed,
                                                  environment: .sandbox, appAppleId: nil, bundleId: Self.app, purchase: nil,
                                                  reinstates: false, summary: "TEST → answered", known: true))
    }

    @Test func summaryAndExternalPurchaseNotificationsCarryNoPurchase() async throws {
        let chain = try AppleTestChain.make()
        let verifier = try AppleSignedDataVerifier(additionalRootCertificates: [chain.rootDER])
        var summary = AppleNotificationPayload()
        summary.rawNotificationType = "RENEWAL_EXTENSION"
        summary.rawSubtype = "SUMMARY"
        summary.notificationUUID = "summary-1"
        summary.signedDate = Self.signed
        summary.summary = .init()
        summary.summary?.rawEnvironment = "Production"
        summary.summary?.bundleId = Self.app
        summary.summary?.appAppleId = Self.appAppleId
        summary.summary?.succeededCount = 10
        let effect = try await AppleNotificationInterpreter.interpret(summary, verifier: verifier).get()
        #expect(effect.purchase == nil && effect.known && effect.environment == .production && effect.bundleId == Self.app)
        #expect(effect.summary == "RENEWAL_EXTENSION/SUMMARY → no transaction")

        var external = AppleNotificationPayload()
        external.rawNotificationType = "EXTERNAL_PURCHASE_TOKEN"
        external.rawSubtype = "UNREPORTED"
        external.notificationUUID = "external-1"
        external.signedDate = Self.signed
        external.externalPurchaseToken = .init()
        external.externalPurchaseToken?.externalPurchaseId = "SANDBOX_123"
        external.externalPurchaseToken?.bundleId = Self.app
        let token = try await AppleNotificationInterpreter.interpret(external, verifier: verifier).get()
        #expect(token.purchase == nil && token.known && token.environment == .sandbox)
    }

    @Test func innerSignedDataIsVerifiedForTheNotificationsAppAndEnvironment() async throws {
        let chain = try AppleTestChain.make()
        let verifier = try AppleSignedDataVerifier(additionalRootCertificates: [chain.rootDER])
        let row = Row(type: "DID_RENEW", status: 1, state: .active)

        var tampered = Self.notification(row, chain: chain)
        tampered.data?.signedTransactionInfo = chain.sign(
            AppleTestTransaction(bundleId: Self.app, productId: Self.monthly, type: .autoRenewable), signingKey: .init())
        var result = await AppleNotificationInterpreter.interpret(try await Self.verified(tampered, chain: chain, verifier: verifier), verifier: verifier)
        #expect(result.failure?.reason == .invalidSignature)

        var badRenewal = Self.notification(row, chain: chain)
        badRenewal.data?.signedRenewalInfo = chain.sign(
            AppleTestRenewalInfo(originalTransactionId: "2000000000010001", productId: Self.monthly), signingKey: .init())
        result = await AppleNotificationInterpreter.interpret(try await Self.verified(badRenewal, chain: chain, verifier: verifier), verifier: verifier)
        #expect(result.failure?.reason == .invalidSignature)

        // A sandbox transaction inside a production notification.
        var mixed = Self.notification(row, chain: chain)
        mixed.data?.signedTransactionInfo = Self.notification(row, chain: chain, environment: "Sandbox").data?.signedTransactionInfo
        result = await AppleNotificationInterpreter.interpret(try await Self.verified(mixed, chain: chain, verifier: verifier), verifier: verifier)
        #expect(result.failure?.reason == .wrongEnvironment)

        // Another app's transaction inside this app's notification.
        var foreign = Self.notification(row, chain: chain)
        foreign.data?.signedTransactionInfo = chain.signTransaction(AppleTestTransaction(bundleId: "com.example.other", productId: "x"))
        result = await AppleNotificationInterpreter.interpret(try await Self.verified(foreign, chain: chain, verifier: verifier), verifier: verifier)
        #expect(result.failure?.reason == .wrongApp)

        var anonymous = try await Self.verified(Self.notification(row, chain: chain), chain: chain, verifier: verifier)
        anonymous.notificationUUID = nil
        result = await AppleNotificationInterpreter.interpret(anonymous, verifier: verifier)
        #expect(result.failure?.reason == .malformedJWS)
    }

    @Test func lifecycleWithoutAStatusIsReadFromTheDates() throws {
        let now = Self.signed
        func transaction(expires: Date, revoked: Bool = false) -> AppleTransactionPayload {
            var payload = AppleTransactionPayload()
            payload.rawType = AppleTransactionType.autoRenewableSubscription.rawValue
            payload.expiresDate = expires
            payload.revocationDate = revoked ? now - 10 : nil
            return payload
        }
        var renewal = AppleRenewalInfoPayload()
        renewal.rawAutoRenewStatus = 1
        #expect(AppleLifecycle.lifecycle(transaction: transaction(expires: now + 60), renewal: renewal, status: nil, now: now)?.state == .active)
        renewal.rawAutoRenewStatus = 0
        #expect(AppleLifecycle.lifecycle(transaction: transaction(expires: now + 60), renewal: renewal, status: nil, now: now)?.state == .cancelled)
        #expect(AppleLifecycle.lifecycle(transaction: transaction(expires: now - 60), renewal: renewal, status: nil, now: now)?.state == .expired)
        renewal.rawAutoRenewStatus = 1
        renewal.isInBillingRetryPeriod = true
        let retry = try #require(AppleLifecycle.lifecycle(transaction: transaction(expires: now - 60), renewal: renewal, status: nil, now: now))
        #expect(retry.state == .billingRetry && retry.recheckAt == now + AppleLifecycle.billingRetryRecheck)
        renewal.gracePeriodExpiresDate = now + 3600
        #expect(AppleLifecycle.lifecycle(transaction: transaction(expires: now - 60), renewal: renewal, status: nil, now: now)?.state == .gracePeriod)
        #expect(AppleLifecycle.lifecycle(transaction: transaction(expires: now + 60, revoked: true), renewal: nil, status: nil, now: now)?.state == .revoked)
        // A status Apple adds later falls back to the dates; non-subscriptions have no lifecycle.
        #expect(AppleLifecycle.lifecycle(transaction: transaction(expires: now + 60), renewal: nil, status: 9, now: now)?.state == .active)
        var book = AppleTransactionPayload()
        book.rawType = AppleTransactionType.nonConsumable.rawValue
        #expect(AppleLifecycle.lifecycle(transaction: book, renewal: nil, status: 1, now: now) == nil)
        #expect(AppleLifecycle.periodType(offerType: 1, discountType: nil) == .intro)
        #expect(AppleLifecycle.periodType(offerType: 7, discountType: nil) == .promotional)
        #expect(AppleLifecycle.periodType(offerType: nil, discountType: "FREE_TRIAL") == .normal)
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }
}
