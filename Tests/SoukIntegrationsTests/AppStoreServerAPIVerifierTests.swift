import Crypto
import Foundation
import SoukCore
import SoukTestSupport
import Testing
@testable import SoukIntegrations

/// `AppleStoreVerifier` with the App Store Server API: legacy intakes looked up by transaction id
/// (production, then sandbox), subscriptions enriched with their status, and Apple's or the key's
/// problems kept apart from verdicts on the purchase.
@Suite struct AppStoreServerAPIVerifierTests {
    static let app = "com.example.reader"
    static let monthly = "com.example.reader.monthly"
    static let day: TimeInterval = 86_400

    static func keyFile(_ pem: String) throws -> SecretReference {
        let path = NSTemporaryDirectory() + "souk-iap-\(UUID().uuidString).p8"
        try pem.write(toFile: path, atomically: true, encoding: .utf8)
        return .path(path)
    }

    /// A verifier whose app `app` has `fake`'s key (or `pem`, or no key at all).
    static func verifier(_ chain: AppleTestChain, _ fake: FakeAppStoreServerAPI, production: String, sandbox: String,
                         pem: String? = nil, key: Bool = true, bundleId: String? = nil) throws -> AppleStoreVerifier {
        let settings = AppleStoreSettings(bundleId: bundleId, keyId: key ? fake.keyId : nil, issuerId: fake.issuerId,
                                          privateKey: key ? try keyFile(pem ?? fake.privateKeyPEM) : nil)
        return AppleStoreVerifier(verifier: try AppleSignedDataVerifier(additionalRootCertificates: [chain.rootDER]),
                                  settings: { app in app == Self.app ? CommerceStoreSettings(apple: settings) : nil },
                                  api: AppStoreServerAPIClient(endpoints: AppStoreServerAPIClientTests.endpoints(production, sandbox)))
    }

    static func legacy(_ id: String, sandboxAccount: Bool = false) -> PurchaseClaim {
        PurchaseClaim(store: .appleStore, app: app, storeProductId: monthly, transactionId: id, receipt: "", accountIsSandbox: sandboxAccount)
    }

    static func subscription(_ id: String, environment: String = "Production", expires: Date = Date() + 20 * day) -> AppleTestTransaction {
        AppleTestTransaction(bundleId: app, productId: monthly, type: .autoRenewable, transactionId: id, environment: environment,
                             purchaseDate: expires - 30 * day, expiresDate: expires)
    }

    @Test func legacyIntakeIsLookedUpAndVerifiedWithItsStatus() async throws {
        let chain = try AppleTestChain.make()
        let fake = FakeAppStoreServerAPI(chain: chain, bundleId: Self.app)
        let expires = Date() - Self.day
        fake.add(Self.subscription("2000000000001001", expires: expires))
        let grace = Date() + 5 * Self.day
        fake.setSubscription(originalTransactionId: "2000000000001001", status: 4,
                             renewal: AppleTestRenewalInfo(originalTransactionId: "2000000000001001", productId: Self.monthly,
                                                           gracePeriodExpiresDate: grace))
        try await FakeAppStoreServerAPI.run(production: fake, sandbox: nil) { production, sandbox in
            let verifier = try Self.verifier(chain, fake, production: production, sandbox: sandbox)
            guard case .verified(let purchase) = try await verifier.verify(Self.legacy("2000000000001001")) else {
                Issue.record("the legacy intake was not verified"); return
            }
            #expect(purchase.transactionId == "2000000000001001")
            #expect(purchase.storeProductId == Self.monthly && purchase.type == .autoRenewable)
            #expect(purchase.environment == .production && purchase.app == Self.app)
            let lifecycle = try #require(purchase.lifecycle)
            #expect(lifecycle.state == .gracePeriod)
            #expect(lifecycle.willRenew == true)
            #expect(lifecycle.graceExpiresDate == AppleTestTransaction(bundleId: "", productId: "", expiresDate: grace).expiresDate)
            #expect(lifecycle.recheckAt == lifecycle.graceExpiresDate)
            // One-time purchases carry no lifecycle.
            fake.add(AppleTestTransaction(bundleId: Self.app, productId: "com.example.reader.book", transactionId: "2000000000001002"))
            guard case .verified(let book) = try await verifier.verify(Self.legacy("2000000000001002")) else {
                Issue.record("the book was not verified"); return
            }
            #expect(book.type == .nonConsumable && book.lifecycle == nil)
        }
    }

    @Test func productionFirstThenSandboxAndSandboxFirstForSandboxAccounts() async throws {
        let chain = try AppleTestChain.make()
        let production = FakeAppStoreServerAPI(chain: chain, bundleId: Self.app)
        let sandbox = FakeAppStoreServerAPI(chain: chain, environment: "Sandbox", bundleId: Self.app, keyId: production.keyId,
                                            issuerId: production.issuerId, privateKey: production.privateKey)
        sandbox.add(Self.subscription("2000000000002001", environment: "Sandbox"))
        production.add(Self.subscription("2000000000002002"))
        let productionFaults = StoreFaults(), sandboxFaults = StoreFaults()
        try await FakeAppStoreServerAPI.run(production: production, sandbox: sandbox, productionFaults: productionFaults,
                                            sandboxFaults: sandboxFaults) { productionURL, sandboxURL in
            let verifier = try Self.verifier(chain, production, production: productionURL, sandbox: sandboxURL)
            guard case .verified(let purchase) = try await verifier.verify(Self.legacy("2000000000002001")) else {
                Issue.record("the sandbox purchase was not found"); return
            }
            #expect(purchase.environment == .sandbox)
            #expect(productionFaults.requests(matching: "/inApps/v1/transactions/2000000000002001").count == 1)
            #expect(sandboxFaults.requests(matching: "/inApps/v1/transactions/2000000000002001").count == 1)

            let before = productionFaults.requests.count
            guard case .verified(let again) = try await verifier.verify(Self.legacy("2000000000002001", sandboxAccount: true)) else {
                Issue.record("the sandbox account's purchase was not found"); return
            }
            #expect(again.environment == .sandbox)
            #expect(productionFaults.requests.count == before)

            // A production purchase reported by a sandbox account is still found (the intake rule decides).
            guard case .verified(let live) = try await verifier.verify(Self.legacy("2000000000002002", sandboxAccount: true)) else {
                Issue.record("the production purchase was not found"); return
            }
            #expect(live.environment == .production)

            #expect(try await verifier.verify(Self.legacy("2000000000002999"))
                == .refused(.invalidReceipt("The App Store knows no transaction with this id, in production or in sandbox.")))
            #expect(try await verifier.verify(Self.legacy("not-a-number"))
                == .refused(.invalidReceipt("The App Store refused the transaction id (errorCode 4000006).")))
        }
    }

    @Test func tamperedOrForeignDataFromTheAPIIsRefused() async throws {
        let chain = try AppleTestChain.make()
        let fake = FakeAppStoreServerAPI(chain: chain, bundleId: Self.app)
        fake.add(Self.subscription("2000000000003001"))
        // Apple's data for another app under the same key (a misconfigured bundle id) is not this app's purchase.
        fake.add(AppleTestTransaction(bundleId: "com.example.other", productId: "x", transactionId: "2000000000003002"))
        try await FakeAppStoreServerAPI.run(production: fake, sandbox: nil) { production, sandbox in
            let verifier = try Self.verifier(chain, fake, production: production, sandbox: sandbox)
            guard case .refused(let foreign) = try await verifier.verify(Self.legacy("2000000000003002")) else {
                Issue.record("another app's transaction was accepted"); return
            }
            #expect(foreign.code == "wrong-app")
            fake.signWithWrongKey()
            guard case .refused(let refusal) = try await verifier.verify(Self.legacy("2000000000003001")) else {
                Issue.record("a tampered transaction was accepted"); return
            }
            #expect(refusal.code == "invalid-signature")
        }
    }

    @Test func withoutTheKeyALegacyIntakeCannotBeLookedUp() async throws {
        let chain = try AppleTestChain.make()
        let fake = FakeAppStoreServerAPI(chain: chain, bundleId: Self.app)
        try await FakeAppStoreServerAPI.run(production: fake, sandbox: nil) { production, sandbox in
            let verifier = try Self.verifier(chain, fake, production: production, sandbox: sandbox, key: false)
            guard case .refused(let refusal) = try await verifier.verify(Self.legacy("2000000000004001")) else {
                Issue.record("expected a refusal"); return
            }
            #expect(refusal.code == "store-not-configured")
            #expect(refusal.detail.contains("In-App Purchase key"))
            let local = AppleStoreVerifier(verifier: try AppleSignedDataVerifier(additionalRootCertificates: [chain.rootDER]))
            #expect(try await local.verify(Self.legacy("2000000000004001")).refusalCode == "store-not-configured")
        }
    }

    @Test func refusedOrUnreadableKeyIsAFaultNotARefusal() async throws {
        let chain = try AppleTestChain.make()
        let fake = FakeAppStoreServerAPI(chain: chain, bundleId: Self.app)
        fake.add(Self.subscription("2000000000005001"))
        try await FakeAppStoreServerAPI.run(production: fake, sandbox: nil) { production, sandbox in
            let wrongKey = try Self.verifier(chain, fake, production: production, sandbox: sandbox,
                                             pem: P256.Signing.PrivateKey().pemRepresentation)
            await #expect(throws: StoreFault(.credentials, "Apple refused the In-App Purchase key (401)")) {
                try await wrongKey.verify(Self.legacy("2000000000005001"))
            }
            let notAKey = try Self.verifier(chain, fake, production: production, sandbox: sandbox, pem: "hello")
            await #expect(throws: StoreFault(.credentials, "The In-App Purchase key \(fake.keyId) is not a P-256 private key in PEM (.p8).")) {
                try await notAKey.verify(Self.legacy("2000000000005001"))
            }
            let unreadable = AppleStoreVerifier(
                verifier: try AppleSignedDataVerifier(additionalRootCertificates: [chain.rootDER]),
                settings: { _ in CommerceStoreSettings(apple: AppleStoreSettings(keyId: "K", issuerId: "I", privateKey: .path("/nonexistent/k.p8"))) },
                api: AppStoreServerAPIClient(endpoints: AppStoreServerAPIClientTests.endpoints(production, sandbox)))
            do {
                _ = try await unreadable.verify(Self.legacy("2000000000005001"))
                Issue.record("an unreadable key gave a verdict")
            } catch let fault as StoreFault {
                #expect(fault.kind == .notConfigured)
                #expect(!fault.detail.contains("BEGIN"))
            }
        }
    }

    @Test func appleDownIsRetriedAndRecovers() async throws {
        let chain = try AppleTestChain.make()
        let fake = FakeAppStoreServerAPI(chain: chain, bundleId: Self.app)
        fake.add(Self.subscription("2000000000006001"))
        let faults = StoreFaults()
        try await FakeAppStoreServerAPI.run(production: fake, sandbox: nil, productionFaults: faults) { production, sandbox in
            let verifier = try Self.verifier(chain, fake, production: production, sandbox: sandbox)
            faults.down(status: 503)
            await #expect(throws: StoreFault.self) { try await verifier.verify(Self.legacy("2000000000006001")) }
            faults.recover()
            faults.failNext(1, status: 503)
            #expect(try await verifier.verify(Self.legacy("2000000000006001")).refusalCode == nil)
        }
    }

    @Test func signedTransactionIsEnrichedWithRenewalState() async throws {
        let chain = try AppleTestChain.make()
        let fake = FakeAppStoreServerAPI(chain: chain, bundleId: Self.app)
        var transaction = Self.subscription("2000000000007001")
        transaction.offerType = 1
        transaction.offerDiscountType = "FREE_TRIAL"
        fake.add(transaction)
        let receipt = chain.signTransaction(transaction)
        fake.setSubscription(originalTransactionId: "2000000000007001", status: 1,
                             renewal: AppleTestRenewalInfo(originalTransactionId: "2000000000007001", productId: Self.monthly,
                                                           autoRenewProductId: "com.example.reader.yearly", autoRenewStatus: 0))
        try await FakeAppStoreServerAPI.run(production: fake, sandbox: nil) { production, sandbox in
            // The app's bundle id comes from its settings, not from the claim's app name.
            let verifier = try Self.verifier(chain, fake, production: production, sandbox: sandbox, bundleId: Self.app)
            let claim = PurchaseClaim(store: .appleStore, app: Self.app, storeProductId: Self.monthly, transactionId: "2000000000007001",
                                      receipt: receipt)
            guard case .verified(let purchase) = try await verifier.verify(claim) else { Issue.record("not verified"); return }
            #expect(purchase.lifecycle == StoreLifecycle(state: .cancelled, willRenew: false, periodType: .trial,
                                                         autoRenewStoreProductId: "com.example.reader.yearly"))
        }
    }

    @Test func enrichmentFaultDoesNotBlockASignedIntake() async throws {
        let chain = try AppleTestChain.make()
        let fake = FakeAppStoreServerAPI(chain: chain, bundleId: Self.app)
        let transaction = Self.subscription("2000000000008001")
        fake.add(transaction)
        let faults = StoreFaults()
        try await FakeAppStoreServerAPI.run(production: fake, sandbox: nil, productionFaults: faults) { production, sandbox in
            let claim = PurchaseClaim(store: .appleStore, app: Self.app, storeProductId: Self.monthly, transactionId: "2000000000008001",
                                      receipt: chain.signTransaction(transaction))
            faults.down(status: 503)
            let verifier = try Self.verifier(chain, fake, production: production, sandbox: sandbox)
            guard case .verified(let purchase) = try await verifier.verify(claim) else { Issue.record("not verified"); return }
            #expect(purchase.lifecycle == StoreLifecycle(state: .active))
            #expect(faults.requests(matching: "/inApps/v1/subscriptions/").count == 3)

            // A refused key and a tampered status answer are ignored the same way.
            faults.recover()
            let wrongKey = try Self.verifier(chain, fake, production: production, sandbox: sandbox, pem: P256.Signing.PrivateKey().pemRepresentation)
            #expect(try await wrongKey.verify(claim).purchase?.lifecycle == StoreLifecycle(state: .active))
            fake.signWithWrongKey()
            #expect(try await verifier.verify(claim).purchase?.lifecycle == StoreLifecycle(state: .active))
        }
    }
}

fileprivate extension StoreVerdict {
    var refusalCode: String? {
        if case .refused(let refusal) = self { return refusal.code }
        return nil
    }

    var purchase: VerifiedPurchase? {
        if case .verified(let purchase) = self { return purchase }
        return nil
    }
}
