import Foundation
import SoukCore
import SoukTestSupport
import Testing
@testable import SoukIntegrations

/// `AppleStoreVerifier`: a purchase claim's receipt (the signed transaction) → a store verdict
/// built from the signed payload only.
@Suite struct AppleStoreVerifierTests {
    static let app = "com.example.reader"
    static let signed = Date(timeIntervalSince1970: 1_760_000_000)

    static func claim(_ receipt: String, app: String = app) -> PurchaseClaim {
        // The claim's own fields are deliberately wrong: only the signed payload may be believed.
        PurchaseClaim(store: .appleStore, app: app, storeProductId: "claimed.sku", transactionId: "claimed-id", receipt: receipt)
    }

    @Test func verifiedPurchaseComesFromTheSignedPayloadOnly() async throws {
        let chain = try AppleTestChain.make()
        let verifier = AppleStoreVerifier(verifier: try AppleSignedDataVerifier(additionalRootCertificates: [chain.rootDER]))
        var transaction = AppleTestTransaction(bundleId: Self.app, productId: "com.example.reader.monthly", type: .autoRenewable,
                                               transactionId: "2000000123456789", originalTransactionId: "2000000000000001",
                                               environment: "Sandbox", purchaseDate: Self.signed, expiresDate: Self.signed + 300,
                                               quantity: 1, appAccountToken: "7E3FB20B-4CDB-47CC-936D-99D65F608138")
        transaction.revocationDate = Self.signed + 100
        transaction.revocationReason = 0
        transaction.inAppOwnershipType = "FAMILY_SHARED"
        let verdict = try await verifier.verify(Self.claim(chain.signTransaction(transaction)))
        var expected = VerifiedPurchase(
            store: .appleStore, transactionId: "2000000123456789", originalTransactionId: "2000000000000001",
            storeProductId: "com.example.reader.monthly", type: .autoRenewable, purchaseDate: Self.signed,
            originalPurchaseDate: Self.signed, expiresDate: Self.signed + 300, revocationDate: Self.signed + 100,
            revocationReason: "0", quantity: 1, ownershipType: "FAMILY_SHARED", environment: .sandbox, app: Self.app,
            signedDate: Self.signed, appAccountToken: "7E3FB20B-4CDB-47CC-936D-99D65F608138")
        // What the signed transaction says was paid (milli-units) is kept for metrics.
        expected.price = transaction.price
        expected.currency = transaction.currency
        // Where it was bought: the signed storefront (alpha-3, USA) as the alpha-2 country.
        expected.country = "US"
        #expect(transaction.storefront == "USA")
        #expect(expected.price != nil && verdict == .verified(expected))
        #expect(verifier.store == .appleStore)
    }

    @Test func productionAndSandboxAreBothVerified() async throws {
        let chain = try AppleTestChain.make()
        let verifier = AppleStoreVerifier(verifier: try AppleSignedDataVerifier(additionalRootCertificates: [chain.rootDER]))
        for environment in CommerceEnvironment.allCases {
            let jws = chain.signTransaction(AppleTestTransaction(bundleId: Self.app, productId: "p", environment: environment.rawValue))
            guard case .verified(let purchase) = try await verifier.verify(Self.claim(jws)) else {
                Issue.record("\(environment) was not verified")
                continue
            }
            #expect(purchase.environment == environment)
        }
    }

    @Test func refusalsNameTheirReason() async throws {
        let chain = try AppleTestChain.make()
        let stranger = try AppleTestChain.make()
        let verifier = AppleStoreVerifier(verifier: try AppleSignedDataVerifier(additionalRootCertificates: [chain.rootDER]))
        let transaction = AppleTestTransaction(bundleId: Self.app, productId: "p")
        let cases: [(String, String, String)] = [
            (chain.signTransaction(transaction), "com.example.other", "wrong-app"),
            (chain.signTransaction(AppleTestTransaction(bundleId: Self.app, productId: "p", environment: "Xcode")), Self.app, "wrong-environment"),
            (chain.signTransaction(AppleTestTransaction(bundleId: Self.app, productId: "p", environment: "LocalTesting")), Self.app, "wrong-environment"),
            (stranger.signTransaction(transaction), Self.app, "invalid-signature"),
            (chain.sign(transaction.jsonData, alg: "ES384"), Self.app, "invalid-signature"),
            ("not a jws", Self.app, "invalid-receipt"),
            ("{}", Self.app, "invalid-receipt"),
        ]
        for (receipt, app, code) in cases {
            let verdict = try await verifier.verify(Self.claim(receipt, app: app))
            guard case .refused(let refusal) = verdict else {
                Issue.record("expected \(code), got \(verdict)")
                continue
            }
            #expect(refusal.code == code, "\(refusal.detail)")
        }
    }

    @Test func receiptWrappedInJSONIsUnwrapped() async throws {
        let chain = try AppleTestChain.make()
        let verifier = AppleStoreVerifier(verifier: try AppleSignedDataVerifier(additionalRootCertificates: [chain.rootDER]))
        let jws = chain.signTransaction(AppleTestTransaction(bundleId: Self.app, productId: "p", transactionId: "2000000000000042"))
        let wrapped = [
            " \(jws)\n",
            "\"\(jws)\"",
            #"{"signedTransaction": "\#(jws)"}"#,
            #"{"jwsRepresentation": "\#(jws)"}"#,
            #"{"signedTransactionInfo": "\#(jws)"}"#,
        ]
        for receipt in wrapped {
            let verdict = try await verifier.verify(Self.claim(receipt))
            guard case .verified(let purchase) = verdict else {
                Issue.record("not verified: \(verdict)")
                continue
            }
            #expect(purchase.transactionId == "2000000000000042")
        }
    }

    @Test func signedTransactionLackingWhatSoukNeedsIsRefused() async throws {
        let chain = try AppleTestChain.make()
        let verifier = AppleStoreVerifier(verifier: try AppleSignedDataVerifier(additionalRootCertificates: [chain.rootDER]))
        var payload = try #require(try JSONSerialization.jsonObject(with: AppleTestTransaction(bundleId: Self.app, productId: "p").jsonData) as? [String: Any])
        payload["transactionId"] = nil
        let verdict = try await verifier.verify(Self.claim(chain.sign(try JSONSerialization.data(withJSONObject: payload))))
        #expect(verdict == .refused(.invalidReceipt("the signed transaction lacks transactionId, productId, purchaseDate, signedDate, bundleId or environment")))
    }

    @Test func configuredRootPathsAreAddedToApplesRoot() async throws {
        let chain = try AppleTestChain.make()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("souk-apple-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try chain.writeRoot(in: directory)
        let verifier = try AppleStoreVerifier(additionalRootCertificatePaths: [path])
        let verdict = try await verifier.verify(Self.claim(chain.signTransaction(AppleTestTransaction(bundleId: Self.app, productId: "p"))))
        guard case .verified = verdict else {
            Issue.record("not verified: \(verdict)")
            return
        }
    }
}
