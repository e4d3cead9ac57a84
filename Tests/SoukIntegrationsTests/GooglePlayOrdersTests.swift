import Foundation
import SoukCore
import SoukTestSupport
import Testing
@testable import SoukIntegrations

/// Voided purchases, refunds and one-time products v2 (`GooglePlayStoreVerifier`, `GooglePlayClient`)
/// against the in-memory Play speaking the Android Publisher v3 wire format.
@Suite struct GooglePlayOrdersTests {
    typealias Play = GooglePlayStoreVerifierTests
    static let day = Play.day

    // MARK: One-time products v2

    @Test func productsV2KeepsThePurchaseOptionAndOfferAndReadsEveryState() async throws {
        try await Play.withPlay { rig in
            let bought = rig.now - Self.day
            rig.fake.addProduct(token: "coins", FakeGoogleProduct(productId: "coins.100", orderId: "GPA.5555-6666-7777-88888",
                                                                  purchaseTime: bought, quantity: 3, purchaseOptionId: "bundle-3",
                                                                  offerId: "launch-discount"))
            rig.fake.addProduct(token: "tester", FakeGoogleProduct(productId: "coins.100", orderId: "GPA.6", acknowledgementState: 1,
                                                                   purchaseTime: bought, purchaseType: 0))
            rig.fake.addProduct(token: "refunded", FakeGoogleProduct(productId: "level.pack", orderId: "GPA.1", purchaseState: 1,
                                                                     purchaseTime: bought))
            rig.fake.addProduct(token: "pending", FakeGoogleProduct(productId: "coins.100", orderId: "GPA.2", purchaseState: 2, purchaseTime: bought))
            let verifier = rig.verifier()

            let coins = try #require(Play.verified(try await verifier.verify(Play.claim("coins", product: "coins.100", type: .consumable))))
            #expect(coins.transactionId == "GPA.5555-6666-7777-88888" && coins.quantity == 3 && coins.purchaseDate == bought)
            #expect(coins.purchaseOptionId == "bundle-3" && coins.offerId == "launch-discount")
            // `regionCode`, alpha-2 as Google gives it, is where it was bought.
            #expect(coins.country == "DE")
            #expect(coins.acknowledged == false && coins.consumed == false && coins.environment == .production && coins.storeReference == "coins")
            // v2 answered: v1 was not asked.
            #expect(rig.faults.requests(matching: "/purchases/productsv2/tokens/coins").count == 1)
            #expect(rig.faults.requests(matching: "/purchases/products/").isEmpty)

            let tester = try #require(Play.verified(try await verifier.verify(Play.claim("tester", product: "coins.100", type: .consumable))))
            #expect(tester.environment == .sandbox && tester.acknowledged == true && tester.purchaseOptionId == nil)
            let refunded = try #require(Play.verified(try await verifier.verify(Play.claim("refunded", product: "level.pack", type: .nonConsumable))))
            #expect(refunded.revocationDate == rig.now && refunded.consumed == nil)
            let pending = await #expect(throws: StoreFault.self) {
                try await verifier.verify(Play.claim("pending", product: "coins.100", type: .consumable))
            }
            #expect(pending?.kind == .pendingAtStore)
            guard case .refused(let mismatch) = try await verifier.verify(Play.claim("coins", product: "gems", type: .consumable)) else {
                Issue.record("another product's token must be refused"); return
            }
            #expect(mismatch.detail.contains("purchaseTokenDoesNotMatchProductId"))
        }
    }

    @Test func productsV2ThatGoogleDoesNotServeFallsBackToV1() async throws {
        try await Play.withPlay { rig in
            rig.fake.disableProductsV2()
            rig.fake.addProduct(token: "book", FakeGoogleProduct(productId: "book_1", orderId: "GPA.7", purchaseTime: rig.now,
                                                                 purchaseOptionId: "buy", offerId: "intro"))
            let book = try #require(Play.verified(try await rig.verifier().verify(Play.claim("book", product: "book_1", type: .nonConsumable))))
            #expect(book.transactionId == "GPA.7" && book.purchaseOptionId == nil && book.offerId == nil)
            let paths = rig.faults.requests.map(\.path).filter { $0 != "/token" }
            #expect(paths == ["/androidpublisher/v3/applications/com.example.game/purchases/productsv2/tokens/book",
                              "/androidpublisher/v3/applications/com.example.game/purchases/products/book_1/tokens/book"])
        }
    }

    // MARK: Voided purchases

    @Test func voidedPurchasesAreListedWithTheDocumentedQueryAndPagedByToken() async throws {
        try await Play.withPlay { rig in
            let start = rig.now - 2 * Self.day
            rig.fake.addVoided(FakeGoogleVoided(purchaseToken: "a", orderId: "GPA.A", purchaseTime: start, voidedTime: rig.now - 3600,
                                                voidedSource: 2, voidedReason: 7))
            rig.fake.addVoided(FakeGoogleVoided(purchaseToken: "s", orderId: "GPA.S..1", purchaseTime: start, voidedTime: rig.now - 1800,
                                                subscription: true))
            rig.fake.addVoided(FakeGoogleVoided(purchaseToken: "c", orderId: "GPA.C", purchaseTime: start, voidedTime: rig.now - 60,
                                                voidedQuantity: 1))
            rig.fake.setVoidedPageSize(2)
            let verifier = rig.verifier()
            let since = Int64((rig.now - Self.day).timeIntervalSince1970 * 1000)
            guard case .found(let first) = try await verifier.voidedPurchases(app: Play.package, startTimeMillis: since, token: nil) else {
                Issue.record("first page"); return
            }
            #expect(first.voidedPurchases?.map(\.purchaseToken) == ["a", "s"])
            #expect(first.voidedPurchases?.first?.voidedTimeMillis == Int64((rig.now - 3600).timeIntervalSince1970 * 1000))
            #expect(first.voidedPurchases?.first?.reasonName == "chargeback" && first.voidedPurchases?.first?.voidedSource == 2)
            let next = try #require(first.nextPageToken)
            guard case .found(let second) = try await verifier.voidedPurchases(app: Play.package, startTimeMillis: since, token: next) else {
                Issue.record("second page"); return
            }
            #expect(second.voidedPurchases?.map(\.purchaseToken) == ["c"] && second.voidedPurchases?.first?.voidedQuantity == 1)
            #expect(second.nextPageToken == nil)
            let queries = rig.faults.requests(matching: "/purchases/voidedpurchases").map(\.query)
            #expect(queries.count == 2)
            #expect(queries.allSatisfy { $0.contains("startTime=\(since)") && $0.contains("type=1") && $0.contains("includeQuantityBasedPartialRefund=true") })
            #expect(queries.last?.contains("token=") == true)
            // A token Google no longer takes is a refusal, not a fault.
            rig.fake.forgetPageTokens()
            guard case .rejected(let status, _) = try await verifier.voidedPurchases(app: Play.package, startTimeMillis: since, token: next) else {
                Issue.record("an unknown page token must be refused"); return
            }
            #expect(status == 400)
        }
    }

    // MARK: Refunds

    @Test func refundsAskGoogleAsDocumentedAndItsReadConfirmsThem() async throws {
        try await Play.withPlay { rig in
            rig.fake.addProduct(token: "book", FakeGoogleProduct(productId: "book_1", orderId: "GPA.1234-5678", purchaseTime: rig.now - Self.day))
            rig.fake.addSubscription(token: "sub", Play.subscription(rig))
            let verifier = rig.verifier()
            let order = GoogleRefundRequest.order(orderId: "GPA.1234-5678", productId: "book_1", token: "book")
            #expect(try await verifier.confirmsRefund(app: Play.package, order) == false)
            #expect(try await verifier.refund(app: Play.package, order) == .found(GoogleDone()))
            let refund = try #require(rig.faults.requests(matching: ":refund").first)
            #expect(refund.method == "POST" && refund.path == "/androidpublisher/v3/applications/com.example.game/orders/GPA.1234-5678:refund")
            #expect(refund.query == "revoke=true")
            #expect(try await verifier.confirmsRefund(app: Play.package, order))
            // Refunding it again: Google refuses, with its reason.
            guard case .rejected(status: 400, reason: let reason) = try await verifier.refund(app: Play.package, order) else { Issue.record("twice"); return }
            #expect(reason == "orderNotRefundable")

            let subscription = GoogleRefundRequest.subscription(token: "sub", prorated: true)
            #expect(try await verifier.confirmsRefund(app: Play.package, subscription) == false)
            #expect(try await verifier.refund(app: Play.package, subscription) == .found(GoogleDone()))
            let revoke = try #require(rig.faults.requests(matching: ":revoke").first)
            #expect(revoke.path == "/androidpublisher/v3/applications/com.example.game/purchases/subscriptionsv2/tokens/sub:revoke")
            #expect(revoke.text == #"{"revocationContext":{"proratedRefund":{}}}"#)
            #expect(rig.fake.revocations == ["proratedRefund"])
            #expect(try await verifier.confirmsRefund(app: Play.package, subscription))
        }
    }

    @Test func aRefundWithoutAnAnswerFromGoogleIsAFault() async throws {
        try await Play.withPlay { rig in
            rig.fake.addProduct(token: "book", FakeGoogleProduct(productId: "book_1", orderId: "GPA.9", purchaseTime: rig.now))
            let verifier = rig.verifier()
            _ = try await verifier.confirmsRefund(app: Play.package, .order(orderId: "GPA.9", productId: "book_1", token: "book"))
            rig.faults.down(status: 503)
            let fault = await #expect(throws: StoreFault.self) {
                try await verifier.refund(app: Play.package, .order(orderId: "GPA.9", productId: "book_1", token: "book"))
            }
            #expect(fault?.kind == .unavailable)
            rig.faults.recover()
            #expect(rig.fake.product(token: "book")?.purchaseState == 0)
        }
    }
}
