import Crypto
import Foundation
import SoukCore
import SoukTestSupport
import Testing
@testable import SoukIntegrations

/// `AppleStoreVerifier` with a StoreKit 1 app receipt as the claim's receipt: verified, then the
/// in-app purchase it holds looked up at the App Store Server API of the receipt's environment,
/// as Apple's `ReceiptUtility` + `AppReceiptVerifier` lead to it.
@Suite struct AppleAppReceiptLookUpTests {
    typealias API = AppStoreServerAPIVerifierTests
    static let app = API.app
    static let book = "com.example.reader.book"

    static func claim(_ receipt: String, transactionId: String = "", sku: String = book) -> PurchaseClaim {
        PurchaseClaim(store: .appleStore, app: app, storeProductId: sku, transactionId: transactionId, receipt: receipt)
    }

    @Test func aReceiptsInAppPurchaseIsLookedUpAndVerified() async throws {
        let chain = try AppleTestChain.make()
        let fake = FakeAppStoreServerAPI(chain: chain, bundleId: Self.app)
        fake.add(AppleTestTransaction(bundleId: Self.app, productId: Self.book, transactionId: "2000000000005001"))
        fake.add(API.subscription("2000000000005002"))
        let receipt = try AppleTestReceipt(bundleId: Self.app, inAppPurchases: [
            .init(productId: Self.book, transactionId: "2000000000005001", purchaseDate: Date() - 3 * API.day),
            .init(productId: API.monthly, transactionId: "2000000000005002", purchaseDate: Date() - API.day),
        ]).signed(by: chain)
        let faults = StoreFaults()
        try await FakeAppStoreServerAPI.run(production: fake, sandbox: nil, productionFaults: faults) { production, sandbox in
            let verifier = try API.verifier(chain, fake, production: production, sandbox: sandbox)
            // The claimed product's purchase, whether or not the claim names its id; wrapped as apps send it, too.
            for receiptText in [receipt, #"{"receipt": "\#(receipt)"}"#] {
                guard case .verified(let book) = try await verifier.verify(Self.claim(receiptText)) else {
                    Issue.record("the receipt's book was not verified"); return
                }
                #expect(book.transactionId == "2000000000005001" && book.storeProductId == Self.book && book.app == Self.app)
            }
            guard case .verified(let monthly) = try await verifier.verify(Self.claim(receipt, transactionId: "2000000000005002", sku: API.monthly)) else {
                Issue.record("the receipt's subscription was not verified"); return
            }
            #expect(monthly.transactionId == "2000000000005002" && monthly.type == .autoRenewable && monthly.lifecycle != nil)
            // Another product than the receipt holds: the newest purchase is looked up (the intake rule refuses the mismatch).
            guard case .verified(let newest) = try await verifier.verify(Self.claim(receipt, sku: "com.example.reader.other")) else {
                Issue.record("the newest purchase was not looked up"); return
            }
            #expect(newest.transactionId == "2000000000005002")
            #expect(faults.requests(matching: "/inApps/v1/transactions/2000000000005001").count >= 2)
        }
    }

    @Test func aSandboxReceiptIsLookedUpInTheSandboxOnly() async throws {
        let chain = try AppleTestChain.make()
        let production = FakeAppStoreServerAPI(chain: chain, bundleId: Self.app)
        let sandbox = FakeAppStoreServerAPI(chain: chain, environment: "Sandbox", bundleId: Self.app, keyId: production.keyId,
                                            issuerId: production.issuerId, privateKey: production.privateKey)
        sandbox.add(AppleTestTransaction(bundleId: Self.app, productId: Self.book, transactionId: "2000000000006001", environment: "Sandbox"))
        production.add(AppleTestTransaction(bundleId: Self.app, productId: Self.book, transactionId: "2000000000006002"))
        let productionFaults = StoreFaults()
        try await FakeAppStoreServerAPI.run(production: production, sandbox: sandbox, productionFaults: productionFaults) { productionURL, sandboxURL in
            let verifier = try API.verifier(chain, production, production: productionURL, sandbox: sandboxURL)
            let inSandbox = try AppleTestReceipt(bundleId: Self.app, receiptType: "ProductionSandbox",
                                                 inAppPurchases: [.init(productId: Self.book, transactionId: "2000000000006001")]).signed(by: chain)
            guard case .verified(let purchase) = try await verifier.verify(Self.claim(inSandbox)) else {
                Issue.record("the sandbox receipt's purchase was not verified"); return
            }
            #expect(purchase.environment == .sandbox)
            #expect(productionFaults.requests.isEmpty)
            // A sandbox receipt naming a production transaction: the sandbox does not know it.
            let mixed = try AppleTestReceipt(bundleId: Self.app, receiptType: "ProductionSandbox",
                                             inAppPurchases: [.init(productId: Self.book, transactionId: "2000000000006002")]).signed(by: chain)
            #expect(try await verifier.verify(Self.claim(mixed))
                == .refused(.invalidReceipt("The App Store knows no transaction 2000000000006002 in Sandbox.")))
        }
    }

    @Test func receiptsThatDoNotVerifyOrHoldNothingAreRefused() async throws {
        let chain = try AppleTestChain.make()
        let fake = FakeAppStoreServerAPI(chain: chain, bundleId: Self.app)
        fake.add(AppleTestTransaction(bundleId: Self.app, productId: Self.book, transactionId: "2000000000007001"))
        let faults = StoreFaults()
        try await FakeAppStoreServerAPI.run(production: fake, sandbox: nil, productionFaults: faults) { production, sandbox in
            let verifier = try API.verifier(chain, fake, production: production, sandbox: sandbox)
            let holding = AppleTestReceipt(bundleId: Self.app, inAppPurchases: [.init(productId: Self.book, transactionId: "2000000000007001")])
            func code(_ receipt: String) async throws -> String? {
                guard case .refused(let refusal) = try await verifier.verify(Self.claim(receipt)) else { return nil }
                return refusal.code
            }
            #expect(try await code(try holding.signed(by: try AppleTestChain.make())) == "invalid-receipt")
            #expect(try await code(try holding.signed(by: chain, signingKey: P256.Signing.PrivateKey())) == "invalid-receipt")
            let truncated = try #require(Data(base64Encoded: try holding.signed(by: chain)))
            #expect(try await code(truncated.prefix(200).base64EncodedString()) == "invalid-receipt")
            #expect(try await code(try AppleTestReceipt(bundleId: Self.app).signed(by: chain)) == "receipt-without-purchases")
            #expect(try await code(try AppleTestReceipt(bundleId: "com.example.other", inAppPurchases: holding.inAppPurchases).signed(by: chain))
                == "wrong-app")
            // Nothing was asked of Apple for any of them.
            #expect(faults.requests.isEmpty)
        }
    }

    @Test func aReceiptNeedsTheInAppPurchaseKeyToBeLookedUp() async throws {
        let chain = try AppleTestChain.make()
        let fake = FakeAppStoreServerAPI(chain: chain, bundleId: Self.app)
        try await FakeAppStoreServerAPI.run(production: fake, sandbox: nil) { production, sandbox in
            let verifier = try API.verifier(chain, fake, production: production, sandbox: sandbox, key: false)
            let receipt = try AppleTestReceipt(bundleId: Self.app, inAppPurchases: [.init(productId: Self.book)]).signed(by: chain)
            guard case .refused(let refusal) = try await verifier.verify(Self.claim(receipt)) else {
                Issue.record("a receipt was verified without a key to look it up"); return
            }
            #expect(refusal.code == "store-not-configured")
        }
    }
}
