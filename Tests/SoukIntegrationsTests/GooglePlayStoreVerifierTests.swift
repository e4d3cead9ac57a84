import Foundation
import JWTKit
import SoukCore
import SoukTestSupport
import Synchronization
import Testing
@testable import SoukIntegrations

/// `GooglePlayStoreVerifier` (and `GooglePlayClient`, `GoogleAccessTokens`) against an in-memory Play
/// speaking the Android Publisher v3 and OAuth wire formats.
@Suite struct GooglePlayStoreVerifierTests {
    static let package = "com.example.game"
    static let email = "souk-verifier@example-project.iam.gserviceaccount.com"
    static let day: TimeInterval = 86_400
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// Everything one test needs, on one fake server.
    struct Rig: Sendable {
        var fake: FakeGooglePlay
        var faults: StoreFaults
        var clock: TestClock
        var base: String
        var keyPath: String
        var timeout: Duration

        var now: Date { clock.now }

        func endpoints(timeout: Duration? = nil, retryMax: Duration = .milliseconds(5), attempts: Int = 3) -> StoreEndpoints {
            var endpoints = StoreEndpoints()
            endpoints.googlePlayBaseURL = base
            endpoints.googleOAuthTokenURL = base + "/token"
            endpoints.googlePushCertsURL = base + "/oauth2/v3/certs"
            endpoints.retry = StoreRetryPolicy(base: .milliseconds(1), max: retryMax, attempts: attempts, requestTimeout: timeout ?? self.timeout)
            return endpoints
        }

        func verifier(settings: GooglePlaySettings? = nil, timeout: Duration? = nil, retryMax: Duration = .milliseconds(5),
                      attempts: Int = 3) -> GooglePlayStoreVerifier {
            let google = settings ?? GooglePlaySettings(packageName: GooglePlayStoreVerifierTests.package, serviceAccount: .path(keyPath))
            let clock = clock
            return GooglePlayStoreVerifier(settings: { _ in CommerceStoreSettings(googlePlay: google) },
                                           endpoints: endpoints(timeout: timeout, retryMax: retryMax, attempts: attempts), now: { clock.now })
        }
    }

    /// Generous per-request timeout (a full parallel run can be slow to answer); the slow-store test sets its own.
    static func withPlay(tokenURIInKeyFile: String = "https://oauth2.googleapis.com/token",
                         _ body: @escaping @Sendable (Rig) async throws -> Void) async throws {
        let clock = TestClock(start)
        let fake = try FakeGooglePlay(packageName: package, now: { clock.now })
        let folder = NSTemporaryDirectory() + "souk-google-\(UUID().uuidString)"
        let keyPath = try fake.writeServiceAccount(into: folder, email: email, tokenURI: tokenURIInKeyFile)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let faults = StoreFaults()
        try await FakeStoreServer.run(faults: faults, routes: fake.routes) { base in
            try await body(Rig(fake: fake, faults: faults, clock: clock, base: base, keyPath: keyPath, timeout: .seconds(60)))
        }
    }

    static func claim(_ receipt: String, product: String = "premium.monthly", type: ProductType? = .autoRenewable,
                      transactionId: String = "GPA.0000-0000-0000-00000") -> PurchaseClaim {
        PurchaseClaim(store: .googlePlay, app: package, storeProductId: product, transactionId: transactionId, receipt: receipt, productType: type)
    }

    static func subscription(_ rig: Rig, state: String = "SUBSCRIPTION_STATE_ACTIVE", expires: TimeInterval = 5 * day,
                             order: String? = "GPA.1111-2222-3333-44444..2") -> FakeGoogleSubscription {
        FakeGoogleSubscription(productId: "premium.monthly", state: state, startTime: rig.now - 60 * day, expiryTime: rig.now + expires,
                               latestOrderId: order)
    }

    static func verified(_ verdict: StoreVerdict, _ comment: Comment? = nil) -> VerifiedPurchase? {
        guard case .verified(let purchase) = verdict else { Issue.record("not verified: \(verdict) \(comment.map { "\($0)" } ?? "")"); return nil }
        return purchase
    }

    // MARK: Subscriptions

    @Test func activeSubscriptionMapsOrderIdsDatesAndLifecycle() async throws {
        try await Self.withPlay { rig in
            var subscription = Self.subscription(rig)
            subscription.linkedPurchaseToken = "old-token-77"
            subscription.offerPhase = "basePrice"
            subscription.obfuscatedExternalAccountId = "account-hash-1"
            rig.fake.addSubscription(token: "sub-token-1", subscription)
            let verdict = try await rig.verifier().verify(Self.claim("sub-token-1"))
            let purchase = try #require(Self.verified(verdict))
            #expect(purchase.transactionId == "GPA.1111-2222-3333-44444..2")
            #expect(purchase.originalTransactionId == "GPA.1111-2222-3333-44444")
            #expect(purchase.storeProductId == "premium.monthly" && purchase.type == .autoRenewable)
            #expect(purchase.expiresDate == rig.now + 5 * Self.day)
            #expect(abs(purchase.purchaseDate.timeIntervalSince(rig.now - 60 * Self.day)) < 0.001)
            #expect(purchase.environment == .production && purchase.app == Self.package)
            #expect(purchase.storeReference == "sub-token-1" && purchase.linkedStoreReference == "old-token-77")
            #expect(purchase.acknowledged == false && purchase.appAccountToken == "account-hash-1")
            #expect(purchase.country == "DE")
            #expect(purchase.lifecycle == StoreLifecycle(state: .active, willRenew: true, periodType: .normal,
                                                         autoRenewStoreProductId: "premium.monthly", recheckAt: rig.now + 5 * Self.day))
            let paths = rig.faults.requests.map(\.path)
            #expect(paths == ["/token", "/androidpublisher/v3/applications/com.example.game/purchases/subscriptionsv2/tokens/sub-token-1"])
            let call = try #require(rig.faults.requests.last)
            #expect(call.method == "GET" && call.headers["authorization"]?.hasPrefix("Bearer ya29.fake-") == true)
        }
    }

    @Test func everySubscriptionStateMapsToTheLifecycle() async throws {
        try await Self.withPlay { rig in
            let verifier = rig.verifier()
            func lifecycle(_ change: (inout FakeGoogleSubscription) -> Void) async throws -> VerifiedPurchase? {
                var subscription = Self.subscription(rig)
                change(&subscription)
                let token = "t-\(UUID().uuidString)"
                rig.fake.addSubscription(token: token, subscription)
                return Self.verified(try await verifier.verify(Self.claim(token)))
            }
            let expiry = rig.now + 5 * Self.day
            let cancelled = try #require(try await lifecycle { $0.state = "SUBSCRIPTION_STATE_CANCELED"; $0.autoRenewEnabled = false })
            #expect(cancelled.lifecycle == StoreLifecycle(state: .cancelled, willRenew: false, recheckAt: expiry))
            let grace = try #require(try await lifecycle { $0.state = "SUBSCRIPTION_STATE_IN_GRACE_PERIOD" })
            #expect(grace.lifecycle?.state == .gracePeriod && grace.lifecycle?.graceExpiresDate == expiry && grace.lifecycle?.willRenew == true)
            let hold = try #require(try await lifecycle { $0.state = "SUBSCRIPTION_STATE_ON_HOLD" })
            #expect(hold.lifecycle?.state == .billingRetry)
            let paused = try #require(try await lifecycle { $0.state = "SUBSCRIPTION_STATE_PAUSED" })
            #expect(paused.lifecycle?.state == .paused)
            let expired = try #require(try await lifecycle { $0.state = "SUBSCRIPTION_STATE_EXPIRED"; $0.expiryTime = rig.now - Self.day })
            #expect(expired.lifecycle?.state == .expired && expired.lifecycle?.willRenew == false && expired.expiresDate == rig.now - Self.day)
            let trial = try #require(try await lifecycle { $0.offerPhase = "freeTrial" })
            #expect(trial.lifecycle?.periodType == .trial)
            let intro = try #require(try await lifecycle { $0.offerPhase = "introductoryPrice" })
            #expect(intro.lifecycle?.periodType == .intro)
            let tagged = try #require(try await lifecycle { $0.offerTags = ["free-trial-7d"] })
            #expect(tagged.lifecycle?.periodType == .trial)
            let test = try #require(try await lifecycle { $0.testPurchase = true; $0.acknowledged = true })
            #expect(test.environment == .sandbox && test.acknowledged == true)
            let prepaid = try #require(try await lifecycle { $0.autoRenewEnabled = nil })
            #expect(prepaid.type == .nonRenewing && prepaid.lifecycle?.willRenew == false)
            let renewOff = try #require(try await lifecycle { $0.autoRenewEnabled = false })
            #expect(renewOff.lifecycle?.state == .active && renewOff.lifecycle?.willRenew == false)
            let switching = try #require(try await lifecycle { $0.deferredProductId = "premium.yearly" })
            #expect(switching.lifecycle?.autoRenewStoreProductId == "premium.yearly")
            let firstOrder = try #require(try await lifecycle { $0.latestOrderId = "GPA.9999-8888-7777-66666" })
            #expect(firstOrder.transactionId == "GPA.9999-8888-7777-66666" && firstOrder.originalTransactionId == "GPA.9999-8888-7777-66666")
        }
    }

    @Test func pendingSubscriptionWaitsAndCancelledPendingIsRefused() async throws {
        try await Self.withPlay { rig in
            rig.fake.addSubscription(token: "pending", Self.subscription(rig, state: "SUBSCRIPTION_STATE_PENDING"))
            rig.fake.addSubscription(token: "dropped", Self.subscription(rig, state: "SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED"))
            rig.fake.addSubscription(token: "future", Self.subscription(rig, state: "SUBSCRIPTION_STATE_SOMETHING_NEW"))
            let verifier = rig.verifier()
            let fault = await #expect(throws: StoreFault.self) { try await verifier.verify(Self.claim("pending")) }
            #expect(fault?.kind == .pendingAtStore)
            guard case .refused(let refusal) = try await verifier.verify(Self.claim("dropped")) else { Issue.record("not refused"); return }
            #expect(refusal.code == "purchase-cancelled")
            let unknown = await #expect(throws: StoreFault.self) { try await verifier.verify(Self.claim("future")) }
            #expect(unknown?.kind == .unavailable && unknown?.detail.contains("SUBSCRIPTION_STATE_SOMETHING_NEW") == true)
        }
    }

    // MARK: One-time products

    /// Through `purchases.products` (v1): the app's Play answers 404 for `purchases.productsv2`.
    @Test func oneTimeProductStatesThroughV1WhereGoogleHasNoV2() async throws {
        try await Self.withPlay { rig in
            rig.fake.disableProductsV2()
            let bought = rig.now - Self.day
            rig.fake.addProduct(token: "coins", FakeGoogleProduct(productId: "coins.100", orderId: "GPA.5555-6666-7777-88888",
                                                                  purchaseTime: bought, quantity: 2))
            rig.fake.addProduct(token: "tester", FakeGoogleProduct(productId: "coins.100", orderId: nil, acknowledgementState: 1,
                                                                   purchaseTime: bought, purchaseType: 0))
            rig.fake.addProduct(token: "refunded", FakeGoogleProduct(productId: "level.pack", orderId: "GPA.1", purchaseState: 1,
                                                                     purchaseTime: bought))
            rig.fake.addProduct(token: "pending", FakeGoogleProduct(productId: "coins.100", orderId: "GPA.2", purchaseState: 2, purchaseTime: bought))
            let verifier = rig.verifier()

            let coins = try #require(Self.verified(try await verifier.verify(Self.claim("coins", product: "coins.100", type: .consumable))))
            #expect(coins.transactionId == "GPA.5555-6666-7777-88888" && coins.originalTransactionId == coins.transactionId)
            #expect(coins.storeProductId == "coins.100" && coins.type == .consumable && coins.quantity == 2)
            #expect(coins.purchaseDate == bought && coins.environment == .production && coins.lifecycle == nil)
            #expect(coins.acknowledged == false && coins.consumed == false && coins.revocationDate == nil && coins.storeReference == "coins")
            #expect(coins.country == "DE")

            let tester = try #require(Self.verified(try await verifier.verify(Self.claim("tester", product: "coins.100", type: .consumable,
                                                                                         transactionId: "GPA.from-the-app"))))
            #expect(tester.environment == .sandbox && tester.acknowledged == true && tester.transactionId == "GPA.from-the-app")
            let anonymous = try #require(Self.verified(try await verifier.verify(Self.claim("tester", product: "coins.100", type: .consumable,
                                                                                            transactionId: ""))))
            #expect(anonymous.transactionId.hasPrefix("GPT.") && !anonymous.transactionId.contains("tester"))
            // A claim rebuilt from a notification may carry the token as its transaction id: never an id.
            let rebuilt = try #require(Self.verified(try await verifier.verify(Self.claim("tester", product: "coins.100", type: .consumable,
                                                                                          transactionId: "tester"))))
            #expect(rebuilt.transactionId == anonymous.transactionId)

            let refunded = try #require(Self.verified(try await verifier.verify(Self.claim("refunded", product: "level.pack", type: .nonConsumable))))
            #expect(refunded.revocationDate == rig.now && refunded.revocationReason == "purchaseState 1" && refunded.consumed == nil)

            let fault = await #expect(throws: StoreFault.self) {
                try await verifier.verify(Self.claim("pending", product: "coins.100", type: .consumable))
            }
            #expect(fault?.kind == .pendingAtStore && fault.map { !"\($0)".contains("pending\"") } == true)
            #expect(rig.faults.requests(matching: "/purchases/products/coins.100/tokens/coins").count == 1)
            #expect(rig.faults.requests(matching: "subscriptions").isEmpty)
        }
    }

    // MARK: Receipts

    @Test func bareTokenTriesSubscriptionsThenProducts() async throws {
        try await Self.withPlay { rig in
            rig.fake.addProduct(token: "tok-1", FakeGoogleProduct(productId: "gems", orderId: "GPA.3", purchaseTime: rig.now))
            let purchase = try #require(Self.verified(try await rig.verifier().verify(Self.claim("tok-1", product: "gems", type: nil))))
            #expect(purchase.storeProductId == "gems" && purchase.transactionId == "GPA.3")
            let paths = rig.faults.requests.map(\.path).filter { $0 != "/token" }
            #expect(paths == ["/androidpublisher/v3/applications/com.example.game/purchases/subscriptionsv2/tokens/tok-1",
                              "/androidpublisher/v3/applications/com.example.game/purchases/productsv2/tokens/tok-1"])
        }
    }

    @Test func purchaseJSONPicksTheEndpointAndProduct() async throws {
        try await Self.withPlay { rig in
            rig.fake.addProduct(token: "tok-p", FakeGoogleProduct(productId: "gems", orderId: "GPA.4", purchaseTime: rig.now))
            rig.fake.addSubscription(token: "tok-s", Self.subscription(rig))
            let verifier = rig.verifier()
            // A one-time purchase's JSON has no autoRenewing: products first, with the JSON's productId.
            let productJSON = #"{"orderId":"GPA.4","packageName":"com.example.game","productId":"gems","purchaseTime":1800000000000,"purchaseState":0,"purchaseToken":"tok-p","quantity":1,"acknowledged":false}"#
            let product = try #require(Self.verified(try await verifier.verify(Self.claim(productJSON, product: "claimed-other", type: nil))))
            #expect(product.storeProductId == "gems")
            #expect(rig.faults.requests(matching: "subscriptionsv2").isEmpty)
            let subscriptionJSON = #"{"orderId":"GPA.1111-2222-3333-44444..2","packageName":"com.example.game","productId":"premium.monthly","purchaseToken":"tok-s","autoRenewing":true}"#
            let subscription = try #require(Self.verified(try await verifier.verify(Self.claim(subscriptionJSON, type: nil))))
            #expect(subscription.type == .autoRenewable)
            #expect(rig.faults.requests(matching: "/productsv2/").count == 1)
            // Some SDKs wrap the purchase JSON: {"json": "<purchase JSON>", "signature": "…"}.
            let wrapped = try String(decoding: JSONSerialization.data(withJSONObject: ["json": productJSON, "signature": "c2ln"]), as: UTF8.self)
            #expect(Self.verified(try await verifier.verify(Self.claim(wrapped, product: "gems", type: .consumable)))?.transactionId == "GPA.4")
        }
    }

    @Test func wrongPackageAndUnreadableReceiptsAreRefusedWithoutACall() async throws {
        try await Self.withPlay { rig in
            let verifier = rig.verifier()
            let other = #"{"packageName":"com.evil.clone","productId":"gems","purchaseToken":"tok"}"#
            guard case .refused(let wrong) = try await verifier.verify(Self.claim(other, type: .consumable)) else { Issue.record("package"); return }
            #expect(wrong.code == "wrong-app" && wrong.detail.contains("com.evil.clone"))
            for receipt in ["", "   ", #"{"productId":"gems"}"#, "{not json", "two words"] {
                guard case .refused(let refusal) = try await verifier.verify(Self.claim(receipt, type: .consumable)) else {
                    Issue.record("receipt \(receipt) not refused"); continue
                }
                #expect(refusal.code == "invalid-receipt")
            }
            #expect(rig.faults.requests.isEmpty)
        }
    }

    @Test func unknownPurchaseIsInvalidReceiptWithoutTheToken() async throws {
        try await Self.withPlay { rig in
            rig.fake.addProduct(token: "gem-token", FakeGoogleProduct(productId: "gems", orderId: "GPA.5", purchaseTime: rig.now))
            let verifier = rig.verifier()
            guard case .refused(let unknown) = try await verifier.verify(Self.claim("secret-token-xyz", type: nil)) else { Issue.record("404"); return }
            #expect(unknown.code == "invalid-receipt" && !unknown.detail.contains("secret-token-xyz"))
            guard case .refused(let mismatch) = try await verifier.verify(Self.claim("gem-token", product: "coins", type: .consumable)) else {
                Issue.record("400"); return
            }
            #expect(mismatch.code == "invalid-receipt" && mismatch.detail.contains("purchaseTokenDoesNotMatchProductId"))
        }
    }

    @Test func missingSettingsAreRefusalOrNotConfigured() async throws {
        try await Self.withPlay { rig in
            let none = GooglePlayStoreVerifier(settings: { _ in CommerceStoreSettings() }, endpoints: rig.endpoints())
            guard case .refused(let refusal) = try await none.verify(Self.claim("t")) else { Issue.record("settings"); return }
            #expect(refusal.code == "store-not-configured")
            let garbage = NSTemporaryDirectory() + "souk-google-garbage-\(UUID().uuidString).json"
            try #"{"type":"service_account","client_email":"x@y","private_key":"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"}"#
                .write(toFile: garbage, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(atPath: garbage) }
            for settings in [GooglePlaySettings(serviceAccount: .path(rig.keyPath)), GooglePlaySettings(packageName: Self.package),
                             GooglePlaySettings(packageName: Self.package, serviceAccount: .path("/nonexistent/souk-key.json")),
                             GooglePlaySettings(packageName: Self.package, serviceAccount: .env("SOUK_TEST_UNSET_GOOGLE_KEY_VARIABLE")),
                             GooglePlaySettings(packageName: Self.package, serviceAccount: .path(garbage))] {
                let fault = await #expect(throws: StoreFault.self) { try await rig.verifier(settings: settings).verify(Self.claim("t")) }
                #expect(fault?.kind == .notConfigured)
                #expect(fault.map { !"\($0)".contains("AAAA") } == true)
            }
            #expect(rig.faults.requests.isEmpty)
        }
    }

    // MARK: OAuth

    @Test func assertionIsAnRS256JWTBearerGrantToTheConfiguredTokenURL() async throws {
        // The key file's token_uri points elsewhere: it must not be used.
        try await Self.withPlay(tokenURIInKeyFile: "http://127.0.0.1:9/steal") { rig in
            rig.fake.addSubscription(token: "s", Self.subscription(rig))
            _ = try #require(Self.verified(try await rig.verifier().verify(Self.claim("s"))))
            let grant = try #require(rig.faults.requests(matching: "/token").first)
            #expect(grant.method == "POST" && grant.headers["content-type"] == "application/x-www-form-urlencoded")
            var form: [String: String] = [:]
            for pair in grant.text.split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
                form[parts[0]] = parts[1]
            }
            #expect(form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer")
            let segments = try #require(form["assertion"]).split(separator: ".").map(String.init)
            #expect(segments.count == 3)
            let header = try JSONSerialization.jsonObject(with: try #require(GoogleRTDNMessage.base64(segments[0]))) as? [String: Any]
            let claims = try JSONSerialization.jsonObject(with: try #require(GoogleRTDNMessage.base64(segments[1]))) as? [String: Any]
            #expect(header?["alg"] as? String == "RS256" && (header?["kid"] as? String)?.isEmpty == false)
            #expect(claims?["iss"] as? String == Self.email && claims?["aud"] as? String == rig.base + "/token")
            #expect(claims?["scope"] as? String == "https://www.googleapis.com/auth/androidpublisher")
            let iat = try #require(claims?["iat"] as? Int)
            #expect(iat == Int(rig.now.timeIntervalSince1970) && claims?["exp"] as? Int == iat + 3600)
        }
    }

    @Test func accessTokenIsCachedAcrossPurchasesAndRenewedBeforeExpiry() async throws {
        try await Self.withPlay { rig in
            for index in 0..<3 { rig.fake.addSubscription(token: "s\(index)", Self.subscription(rig)) }
            let verifier = rig.verifier()
            for index in 0..<3 { _ = try #require(Self.verified(try await verifier.verify(Self.claim("s\(index)")))) }
            #expect(rig.fake.tokensIssued == 1)
            // Past expires_in minus the margin (the fake would still take the old token): concurrent callers share one grant.
            rig.clock.advance(3599 - 300 + 1)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<3 { group.addTask { _ = try await verifier.verify(Self.claim("s\(index)")) } }
                try await group.waitForAll()
            }
            #expect(rig.fake.tokensIssued == 2)
            #expect(rig.faults.requests(matching: "subscriptionsv2").count == 6)
        }
    }

    @Test func revokedAccessTokenIsRenewedOnce() async throws {
        try await Self.withPlay { rig in
            rig.fake.addSubscription(token: "s", Self.subscription(rig))
            let verifier = rig.verifier()
            _ = try #require(Self.verified(try await verifier.verify(Self.claim("s"))))
            rig.fake.revokeIssuedTokens()
            _ = try #require(Self.verified(try await verifier.verify(Self.claim("s"))))
            #expect(rig.fake.tokensIssued == 2)
            #expect(rig.faults.requests.map(\.path).filter { $0 == "/token" }.count == 2)
            // Refused again with a fresh token: the operator's credentials, not the purchase.
            rig.fake.refuseAllTokens()
            let fault = await #expect(throws: StoreFault.self) { try await verifier.verify(Self.claim("s")) }
            #expect(fault?.kind == .credentials && fault?.detail.contains("401") == true)
            #expect(rig.fake.tokensIssued == 3)
        }
    }

    @Test func refusedCredentialsAreACredentialsFaultWithoutSecrets() async throws {
        try await Self.withPlay { rig in
            rig.fake.addSubscription(token: "purchase-token-abc", Self.subscription(rig))
            rig.fake.disable(account: Self.email)
            let disabled = await #expect(throws: StoreFault.self) { try await rig.verifier().verify(Self.claim("purchase-token-abc")) }
            #expect(disabled?.kind == .credentials && disabled?.detail.contains("invalid_grant") == true)
            #expect(disabled.map { !"\($0)".contains("purchase-token-abc") && !"\($0)".contains("PRIVATE") } == true)
        }
        try await Self.withPlay { rig in
            rig.fake.addSubscription(token: "purchase-token-abc", Self.subscription(rig))
            rig.fake.deny(account: Self.email)
            let denied = await #expect(throws: StoreFault.self) { try await rig.verifier().verify(Self.claim("purchase-token-abc")) }
            #expect(denied?.kind == .credentials && denied?.detail.contains("403") == true)
            #expect(denied.map { !"\($0)".contains("purchase-token-abc") && !"\($0)".contains("ya29") } == true)
            // A package the account cannot see is the same: the operator's setup, not the purchase.
            let elsewhere = rig.verifier(settings: GooglePlaySettings(packageName: "com.example.other", serviceAccount: .path(rig.keyPath)))
            let other = await #expect(throws: StoreFault.self) { try await elsewhere.verify(Self.claim("purchase-token-abc")) }
            #expect(other?.kind == .credentials)
        }
    }

    // MARK: Outages

    @Test func outageRecoversAfterRetries() async throws {
        try await Self.withPlay { rig in
            rig.fake.addSubscription(token: "s", Self.subscription(rig))
            rig.faults.failNext(2, status: 503)  // the token call meets them
            _ = try #require(Self.verified(try await rig.verifier().verify(Self.claim("s"))))
            #expect(rig.faults.requests.map(\.path).filter { $0 == "/token" }.count == 3)
            rig.faults.down(status: 503)
            let verifier = rig.verifier()
            let fault = await #expect(throws: StoreFault.self) { try await verifier.verify(Self.claim("s")) }
            #expect(fault?.kind == .unavailable && fault?.detail.contains("503") == true)
            rig.faults.recover()
            _ = try #require(Self.verified(try await verifier.verify(Self.claim("s"))))
        }
    }

    @Test func slowStoreTimesOut() async throws {
        try await Self.withPlay { rig in
            rig.fake.addSubscription(token: "s", Self.subscription(rig))
            rig.faults.delayNext(3, by: .milliseconds(600))
            let fault = await #expect(throws: StoreFault.self) {
                try await rig.verifier(timeout: .milliseconds(200)).verify(Self.claim("s"))
            }
            #expect(fault?.kind == .unavailable && fault?.detail.contains("timed out") == true)
        }
    }

    @Test func rateLimitHonoursRetryAfterUpToThePolicyMaximum() async throws {
        try await Self.withPlay { rig in
            rig.fake.addSubscription(token: "s", Self.subscription(rig))
            rig.fake.rateLimitNext(1, retryAfter: 30)
            let clock = ContinuousClock()
            let started = clock.now
            _ = try #require(Self.verified(try await rig.verifier(retryMax: .milliseconds(250)).verify(Self.claim("s"))))
            #expect(clock.now - started >= .milliseconds(240))  // Retry-After (capped at max), not the 1 ms base
            rig.fake.rateLimitNext(3, retryAfter: 1)
            let fault = await #expect(throws: StoreFault.self) { try await rig.verifier().verify(Self.claim("s")) }
            #expect(fault?.kind == .rateLimited)
        }
    }

    // MARK: Acknowledge and consume

    @Test func acknowledgeAndConsumeAreIdempotent() async throws {
        try await Self.withPlay { rig in
            rig.fake.addProduct(token: "coins-token", FakeGoogleProduct(productId: "coins.100", orderId: "GPA.6", purchaseTime: rig.now))
            rig.fake.addSubscription(token: "sub-token", Self.subscription(rig))
            let verifier = rig.verifier()
            for _ in 0..<2 {
                try await verifier.acknowledge(app: Self.package, storeProductId: "coins.100", purchaseToken: "coins-token", type: .consumable)
                try await verifier.consume(app: Self.package, storeProductId: "coins.100", purchaseToken: "coins-token")
                try await verifier.acknowledge(app: Self.package, storeProductId: "premium.monthly", purchaseToken: "sub-token", type: .autoRenewable)
            }
            #expect(rig.fake.product(token: "coins-token")?.acknowledgementState == 1)
            #expect(rig.fake.product(token: "coins-token")?.consumptionState == 1)
            #expect(rig.fake.subscription(token: "sub-token")?.acknowledged == true)
            #expect(rig.faults.requests(matching: "/purchases/products/coins.100/tokens/coins-token:acknowledge").count == 2)
            #expect(rig.faults.requests(matching: "/purchases/subscriptions/premium.monthly/tokens/sub-token:acknowledge").count == 2)
            #expect(rig.faults.requests(matching: ":consume").allSatisfy { $0.method == "POST" })
            let reread = try #require(Self.verified(try await verifier.verify(Self.claim("coins-token", product: "coins.100", type: .consumable))))
            #expect(reread.acknowledged == true && reread.consumed == true)
        }
    }

    @Test func acknowledgeWaitsForPendingAndNamesUnknownPurchases() async throws {
        try await Self.withPlay { rig in
            rig.fake.addProduct(token: "pending-token", FakeGoogleProduct(productId: "coins.100", orderId: "GPA.7", purchaseState: 2,
                                                                          purchaseTime: rig.now))
            rig.fake.addSubscription(token: "pending-sub", Self.subscription(rig, state: "SUBSCRIPTION_STATE_PENDING"))
            let verifier = rig.verifier()
            let pending = await #expect(throws: StoreFault.self) {
                try await verifier.acknowledge(app: Self.package, storeProductId: "coins.100", purchaseToken: "pending-token", type: .consumable)
            }
            #expect(pending?.kind == .pendingAtStore)
            let pendingSub = await #expect(throws: StoreFault.self) {
                try await verifier.acknowledge(app: Self.package, storeProductId: "premium.monthly", purchaseToken: "pending-sub", type: .autoRenewable)
            }
            #expect(pendingSub?.kind == .pendingAtStore)
            let unknown = await #expect(throws: StoreFault.self) {
                try await verifier.consume(app: Self.package, storeProductId: "coins.100", purchaseToken: "never-sold-token")
            }
            #expect(unknown?.kind == .unavailable && unknown?.detail.contains("404") == true)
            #expect(unknown.map { !"\($0)".contains("never-sold-token") } == true)
            let unconfigured = GooglePlayStoreVerifier(settings: { _ in CommerceStoreSettings() }, endpoints: rig.endpoints())
            let fault = await #expect(throws: StoreFault.self) {
                try await unconfigured.consume(app: Self.package, storeProductId: "coins.100", purchaseToken: "x")
            }
            #expect(fault?.kind == .notConfigured)
        }
    }

    // MARK: Pieces

    @Test func orderIdSuffixAndGoogleTimes() {
        #expect(GooglePlayStoreVerifier.originalOrderId("GPA.1234-5678-9012-34567..12") == "GPA.1234-5678-9012-34567")
        #expect(GooglePlayStoreVerifier.originalOrderId("GPA.1234-5678-9012-34567") == "GPA.1234-5678-9012-34567")
        #expect(GooglePlayStoreVerifier.originalOrderId("GPA.1..x") == "GPA.1..x")
        #expect(GoogleTime.parse("2014-10-02T15:01:23Z") == Date(timeIntervalSince1970: 1_412_262_083))
        #expect(GoogleTime.parse("2014-10-02T15:01:23.045123456Z").map { abs($0.timeIntervalSince1970 - 1_412_262_083.045123456) < 1e-6 } == true)
        #expect(GoogleTime.parse("2014-10-02T15:01:23+05:30") == Date(timeIntervalSince1970: 1_412_262_083 - 19_800))
        #expect(GoogleTime.parse("yesterday") == nil)
    }
}
