import Foundation
import SoukCore
import SoukTestSupport
import Testing
@testable import SoukIntegrations

/// Renewal info and App Store Server Notifications V2 go through the same checks, then their own
/// app and environment rules (as Apple's library): renewal info has no bundle id; a production
/// notification must name the app's Apple id.
@Suite struct AppleRenewalAndNotificationTests {
    static let app = "com.example.reader"
    static let signed = Date(timeIntervalSince1970: 1_760_000_000)

    struct Renewal: Encodable {
        var originalTransactionId = "2000000000000001"
        var autoRenewProductId = "com.example.reader.yearly"
        var productId = "com.example.reader.monthly"
        var autoRenewStatus = 1
        var expirationIntent: Int? = 7
        var isInBillingRetryPeriod = false
        var signedDate: Date
        var environment: String
        var renewalDate: Date
        var renewalPrice: Int64 = 4990
        var currency = "USD"
    }

    @Test func renewalInfoIsCheckedForEnvironmentOnly() async throws {
        let chain = try AppleTestChain.make()
        let verifier = try AppleSignedDataVerifier(additionalRootCertificates: [chain.rootDER])
        let jws = chain.sign(Renewal(signedDate: Self.signed, environment: "Sandbox", renewalDate: Self.signed + 300))
        let payload = try #require(await verifier.verifyRenewalInfo(jws, environments: [.sandbox]).payload)
        #expect(payload.autoRenewStatus == .on)
        #expect(payload.expirationIntent == nil && payload.rawExpirationIntent == 7)
        #expect(payload.renewalDate == Self.signed + 300)
        #expect(payload.autoRenewProductId == "com.example.reader.yearly")
        #expect(await verifier.verifyRenewalInfo(jws, environments: [.production]).failure?.reason == .wrongEnvironment)
        let tampered = chain.sign(Renewal(signedDate: Self.signed, environment: "Sandbox", renewalDate: Self.signed), signingKey: .init())
        #expect(await verifier.verifyRenewalInfo(tampered, environments: [.sandbox]).failure?.reason == .invalidSignature)
    }

    struct Notification: Encodable {
        struct Payload: Encodable {
            var environment: String
            var appAppleId: Int64?
            var bundleId: String
            var signedTransactionInfo: String
            var status = 1
        }
        var notificationType = "DID_RENEW"
        var subtype: String? = "BILLING_RECOVERY"
        var notificationUUID = "002e14d5-51f5-4503-b5a8-c3a1af68eb20"
        var data: Payload
        var version = "2.0"
        var signedDate: Date
    }

    @Test func notificationIsCheckedForAppAppleIdAndEnvironment() async throws {
        let chain = try AppleTestChain.make()
        let verifier = try AppleSignedDataVerifier(additionalRootCertificates: [chain.rootDER])
        let inner = chain.signTransaction(AppleTestTransaction(bundleId: Self.app, productId: "p"))
        func notification(_ environment: String, appAppleId: Int64?, bundleId: String = Self.app) -> String {
            chain.sign(Notification(data: .init(environment: environment, appAppleId: appAppleId, bundleId: bundleId,
                                                signedTransactionInfo: inner), signedDate: Self.signed))
        }
        let production = notification("Production", appAppleId: 1_234_567_890)
        let payload = try #require(await verifier.verifyNotification(production, bundleId: Self.app, appAppleId: 1_234_567_890,
                                                                     environments: [.production]).payload)
        #expect(payload.notificationType == .didRenew)
        #expect(payload.subtype == .billingRecovery)
        #expect(payload.data?.status == .active)
        #expect(payload.data?.signedTransactionInfo == inner)
        #expect(await verifier.verifyNotification(production, bundleId: Self.app, appAppleId: 42, environments: [.production]).failure?.reason == .wrongApp)
        #expect(await verifier.verifyNotification(production, bundleId: Self.app, appAppleId: nil, environments: [.production]).failure?.reason == .wrongApp)
        #expect(await verifier.verifyNotification(production, bundleId: "com.example.other", appAppleId: 1_234_567_890,
                                                  environments: [.production]).failure?.reason == .wrongApp)
        #expect(await verifier.verifyNotification(production, bundleId: Self.app, appAppleId: 1_234_567_890,
                                                  environments: [.sandbox]).failure?.reason == .wrongEnvironment)
        // Sandbox notifications carry no appAppleId requirement (Apple's rule).
        let sandbox = notification("Sandbox", appAppleId: nil)
        #expect(await verifier.verifyNotification(sandbox, bundleId: Self.app, appAppleId: nil, environments: [.sandbox]).payload != nil)
    }

    @Test func unknownNotificationTypeIsKeptRaw() async throws {
        let chain = try AppleTestChain.make()
        let verifier = try AppleSignedDataVerifier(additionalRootCertificates: [chain.rootDER])
        var body = Notification(data: .init(environment: "Sandbox", bundleId: Self.app, signedTransactionInfo: ""), signedDate: Self.signed)
        body.notificationType = "SOMETHING_APPLE_ADDS_LATER"
        body.subtype = "NEW_SUBTYPE"
        let payload = try #require(await verifier.verifyNotification(chain.sign(body), bundleId: Self.app, appAppleId: nil,
                                                                     environments: [.sandbox]).payload)
        #expect(payload.notificationType == nil && payload.rawNotificationType == "SOMETHING_APPLE_ADDS_LATER")
        #expect(payload.subtype == nil && payload.rawSubtype == "NEW_SUBTYPE")
    }
}
