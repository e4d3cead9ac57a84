import Crypto
import Foundation
import SoukCore
import SoukTestSupport
import Testing
@testable import SoukIntegrations

/// StoreKit 1 app receipts (docs/commerce.md, "App receipts"): genuine App Store receipts
/// (Fixtures/apple-real-app-receipts.json) verify to Apple Inc. Root; receipts made in the tests
/// (`AppleTestReceipt`, signed with swift-certificates' CMS by an `AppleTestChain`) verify to the
/// test root and every broken one is refused for its precise reason.
@Suite struct AppleAppReceiptTests {
    static let app = "com.example.reader"

    struct Fixture: Decodable {
        struct Sample: Decodable {
            var name: String
            var bundleId: String
            var receiptType: String
            var creationDate: String
            var transactionId: String
            var productId: String
            var receipt: String
        }
        var receipts: [Sample]
    }

    static let fixture: Fixture = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/apple-real-app-receipts.json")
        do {
            return try JSONDecoder().decode(Fixture.self, from: Data(contentsOf: url))
        } catch {
            preconditionFailure("Fixtures/apple-real-app-receipts.json: \(error)")
        }
    }()

    static func verifier(_ chain: AppleTestChain? = nil) throws -> AppleSignedDataVerifier {
        try AppleSignedDataVerifier(additionalRootCertificates: chain.map { [$0.rootDER] } ?? [])
    }

    @Test func genuineAppStoreReceiptsVerifyToAppleIncRootAtTheirCreationDate() async throws {
        #expect(Self.fixture.receipts.count == 2)
        for sample in Self.fixture.receipts {
            let verifier = try Self.verifier()
            let result = await verifier.verifyAppReceipt(sample.receipt, bundleId: sample.bundleId)
            let receipt = try #require(result.payload, "\(sample.name): \(String(describing: result.failure))")
            #expect(receipt.rawReceiptType == sample.receiptType)
            #expect(receipt.creationDate == ISO8601DateFormatter().date(from: sample.creationDate))
            #expect(receipt.transactionIdForLookUp == sample.transactionId)
            #expect(receipt.inAppPurchases.compactMap(\.productId) == [sample.productId])
            #expect(receipt.environment == (sample.receiptType == "Production" ? .production : .sandbox))
            // Another app's receipt.
            #expect(await verifier.verifyAppReceipt(sample.receipt, bundleId: Self.app).failure?.reason == .wrongApp)
            // Apple Root CA - G3 alone does not make a receipt's chain: Apple Inc. Root does.
            let g3Only = try AppleReceiptVerifier(rootCertificates: [AppleRootCertificates.appleRootCAG3], now: { Date() })
            #expect(await g3Only.verify(sample.receipt).failure?.reason == .untrustedChain)
        }
    }

    @Test func aGenuineReceiptWithOneByteChangedIsRefused() async throws {
        let sample = Self.fixture.receipts[0]
        var der = try #require(Data(base64Encoded: sample.receipt))
        // A byte of the product id inside the payload (the signature covers the payload).
        let productId = Data(sample.productId.utf8)
        let range = try #require(der.range(of: productId))
        der[range.lowerBound] ^= 0x01
        let verifier = try Self.verifier()
        let failure = try #require(await verifier.verifyAppReceipt(der.base64EncodedString(), bundleId: sample.bundleId).failure)
        #expect(failure.reason == .invalidSignature)
    }

    @Test func testReceiptsVerifyInDERAndBERWithAndWithoutSignedAttributes() async throws {
        let chain = try AppleTestChain.make()
        let first = AppleTestReceipt.InAppPurchase(productId: "com.example.reader.book", transactionId: "2000000000000101",
                                                   purchaseDate: Date(timeIntervalSince1970: 1_700_000_000))
        let second = AppleTestReceipt.InAppPurchase(productId: "com.example.reader.monthly", transactionId: "2000000000000102",
                                                    originalTransactionId: "2000000000000100", purchaseDate: Date(timeIntervalSince1970: 1_710_000_000))
        let receipt = AppleTestReceipt(bundleId: Self.app, receiptType: "ProductionSandbox", inAppPurchases: [first, second])
        let der = try receipt.signed(by: chain)
        let variants = [der, try receipt.signed(by: chain, signedAttributes: true), try AppleTestReceipt.indefiniteLengths(der)]
        #expect(try #require(Data(base64Encoded: variants[2])).starts(with: [0x30, 0x80]))
        for base64 in variants {
            let result = try await Self.verifier(chain).verifyAppReceipt(base64, bundleId: Self.app)
            let verified = try #require(result.payload, "\(String(describing: result.failure))")
            #expect(verified.environment == .sandbox)
            #expect(verified.originalApplicationVersion == "1.0")
            #expect(verified.inAppPurchases.map(\.transactionId) == ["2000000000000101", "2000000000000102"])
            #expect(verified.inAppPurchases.map(\.originalTransactionId) == ["2000000000000101", "2000000000000100"])
            #expect(verified.transactionIdForLookUp == "2000000000000101")
        }
        // Without the test root, only Apple's roots: not trusted.
        #expect(try await Self.verifier().verifyAppReceipt(der, bundleId: Self.app).failure?.reason == .untrustedChain)
    }

    @Test func brokenReceiptsAreRefusedForTheirReason() async throws {
        let chain = try AppleTestChain.make()
        let verifier = try Self.verifier(chain)
        let good = AppleTestReceipt(bundleId: Self.app, inAppPurchases: [.init(productId: "com.example.reader.book")])
        func reason(_ base64: String, bundleId: String = Self.app) async -> AppleVerificationFailure.Reason? {
            await verifier.verifyAppReceipt(base64, bundleId: bundleId).failure?.reason
        }
        let otherKey = try good.signed(by: chain, signingKey: P256.Signing.PrivateKey())
        #expect(await reason(otherKey) == .invalidSignature)
        let otherKeyWithAttributes = try good.signed(by: chain, signingKey: P256.Signing.PrivateKey(), signedAttributes: true)
        #expect(await reason(otherKeyWithAttributes) == .invalidSignature)
        let otherChain = try good.signed(by: try AppleTestChain.make())
        #expect(await reason(otherChain) == .untrustedChain)
        let signed = try good.signed(by: chain)
        #expect(await reason(signed) == nil)
        #expect(await reason(signed, bundleId: "com.example.other") == .wrongApp)
        var xcode = good
        xcode.receiptType = "Xcode"
        let xcodeReceipt = try xcode.signed(by: chain)
        #expect(await reason(xcodeReceipt) == .wrongEnvironment)
        let der = try #require(Data(base64Encoded: signed))
        #expect(await reason(der.prefix(der.count / 2).base64EncodedString()) == .malformedReceipt)
        #expect(await reason("not a receipt at all") == .malformedReceipt)
        #expect(await reason(Data("hello".utf8).base64EncodedString()) == .malformedReceipt)
        // Judged at the receipt's creation date: a leaf that expired before it does not verify.
        let expired = try AppleTestChain.make(.init(leafValidity: Date(timeIntervalSince1970: 1_600_000_000)...Date(timeIntervalSince1970: 1_650_000_000)))
        let lateVerifier = try Self.verifier(expired)
        var late = good
        late.creationDate = Date(timeIntervalSince1970: 1_700_000_000)
        let afterExpiry = try late.signed(by: expired)
        #expect(await lateVerifier.verifyAppReceipt(afterExpiry, bundleId: Self.app).failure?.reason == .certificateNotValid)
        late.creationDate = Date(timeIntervalSince1970: 1_620_000_000)
        let beforeExpiry = try late.signed(by: expired)
        #expect(await lateVerifier.verifyAppReceipt(beforeExpiry, bundleId: Self.app).payload != nil)
    }

    @Test func leafAndIntermediateWithoutApplesOIDsAreRefused() async throws {
        let receipt = AppleTestReceipt(bundleId: Self.app, inAppPurchases: [.init(productId: "com.example.reader.book")])
        let noLeafOID = try AppleTestChain.make(.init(leafHasAppleOID: false))
        let signedByLeafWithoutOID = try receipt.signed(by: noLeafOID)
        #expect(try await Self.verifier(noLeafOID).verifyAppReceipt(signedByLeafWithoutOID, bundleId: Self.app).failure?.reason == .missingLeafOID)
        let noIntermediateOID = try AppleTestChain.make(.init(intermediateHasAppleOID: false))
        let underIntermediateWithoutOID = try receipt.signed(by: noIntermediateOID)
        #expect(try await Self.verifier(noIntermediateOID).verifyAppReceipt(underIntermediateWithoutOID, bundleId: Self.app).failure?.reason
            == .missingIntermediateOID)
    }

    @Test func aReceiptIsToldFromAJWS() throws {
        let chain = try AppleTestChain.make()
        #expect(AppleAppReceipt.isAppReceipt(try AppleTestReceipt(bundleId: Self.app).signed(by: chain)))
        #expect(AppleAppReceipt.isAppReceipt(Self.fixture.receipts[0].receipt))
        #expect(!AppleAppReceipt.isAppReceipt(chain.signTransaction(AppleTestTransaction(bundleId: Self.app, productId: "x"))))
        #expect(!AppleAppReceipt.isAppReceipt("garbage"))
        #expect(!AppleAppReceipt.isAppReceipt(""))
    }
}
