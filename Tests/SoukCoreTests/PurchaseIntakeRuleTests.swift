import Foundation
import SoukCore
import Testing

@Suite struct PurchaseIntakeRuleTests {
    typealias C = ReaderCatalog

    static func claim(_ sku: String = "com.example.reader.monthly", store: CommerceStore = .appleStore, app: String = C.app,
                      transactionId: String = "2000000000000002") -> PurchaseClaim {
        PurchaseClaim(store: store, app: app, storeProductId: sku, transactionId: transactionId, receipt: "jws")
    }

    static func verified(_ sku: String = "com.example.reader.monthly", app: String = C.app, environment: CommerceEnvironment = .production,
                         type: ProductType? = .autoRenewable, transactionId: String = "2000000000000002",
                         originalTransactionId: String = "2000000000000001", store: CommerceStore = .appleStore) -> VerifiedPurchase {
        VerifiedPurchase(store: store, transactionId: transactionId, originalTransactionId: originalTransactionId, storeProductId: sku,
                         type: type, purchaseDate: C.day(0), expiresDate: C.day(30), environment: environment, app: app, signedDate: C.day(0))
    }

    static func decide(_ verified: VerifiedPurchase, product: ProductDefinition = C.monthly, claim: PurchaseClaim = claim(),
                       sandboxAccount: Bool = false, allowSandbox: Bool = false) -> Result<CommerceEnvironment, PurchaseRefusal> {
        PurchaseIntakeRule.decide(verified: verified, product: product, claim: claim, accountIsSandbox: sandboxAccount, allowSandbox: allowSandbox)
    }

    static func code<T>(_ result: Result<T, PurchaseRefusal>) -> String? {
        if case .failure(let refusal) = result { return refusal.code }
        return nil
    }

    // MARK: precheck

    @Test func precheckFindsTheProductWhoseSKUWasClaimed() throws {
        #expect(try PurchaseIntakeRule.precheck(productId: "reader.monthly", claim: Self.claim(), catalog: C.state()).get() == C.monthly)
        #expect(try PurchaseIntakeRule.precheck(productId: "reader.monthly", claim: Self.claim("monthly", store: .googlePlay), catalog: C.state()).get() == C.monthly)
    }

    @Test func precheckAcceptsARetiredProduct() throws {
        let claim = Self.claim("com.example.reader.legacy")
        #expect(try PurchaseIntakeRule.precheck(productId: "reader.legacy", claim: claim, catalog: C.state()).get() == C.legacy)
    }

    @Test func precheckRefusesAnUnknownProduct() {
        let result = PurchaseIntakeRule.precheck(productId: "reader.weekly", claim: Self.claim(), catalog: C.state())
        #expect(result == .failure(.unknownProduct("reader.weekly is not a product of com.example.reader.")))
    }

    @Test func precheckRefusesAnotherProductsSKU() {
        let result = PurchaseIntakeRule.precheck(productId: "reader.monthly", claim: Self.claim("com.example.reader.yearly"), catalog: C.state())
        #expect(result == .failure(.productMismatch("com.example.reader.yearly is not the apple_store SKU of reader.monthly.")))
    }

    @Test func precheckRefusesAStoreTheProductIsNotSoldIn() {
        let result = PurchaseIntakeRule.precheck(productId: "reader.monthly", claim: Self.claim("reader-monthly", store: .roku), catalog: C.state())
        #expect(Self.code(result) == "product-mismatch")
        // The same SKU text in another store is not the product's.
        let crossStore = PurchaseIntakeRule.precheck(productId: "reader.monthly", claim: Self.claim("com.example.reader.monthly", store: .googlePlay),
                                                     catalog: C.state())
        #expect(Self.code(crossStore) == "product-mismatch")
    }

    @Test func precheckRefusesAClaimForAnotherApp() {
        let result = PurchaseIntakeRule.precheck(productId: "reader.monthly", claim: Self.claim(app: "com.example.other"), catalog: C.state())
        #expect(Self.code(result) == "wrong-app")
    }

    // MARK: decide

    @Test func decideAcceptsAMatchingProductionPurchase() {
        #expect(Self.decide(Self.verified()) == .success(.production))
    }

    @Test func decideRefusesAPurchaseOfAnotherApp() {
        #expect(Self.decide(Self.verified(app: "com.example.other")) == .failure(
            .wrongApp("The store says this purchase belongs to com.example.other, not com.example.reader.")))
    }

    @Test func decideRefusesWhenTheStoreSaysAnotherSKUWasBought() {
        // The app claimed the monthly SKU; the signed transaction is for the yearly.
        #expect(Self.code(Self.decide(Self.verified("com.example.reader.yearly"))) == "product-mismatch")
    }

    @Test func decideRefusesAVerdictFromAnotherStore() {
        #expect(Self.code(Self.decide(Self.verified("monthly", store: .googlePlay))) == "product-mismatch")
    }

    @Test func decideRefusesATypeThatContradictsTheCatalog() {
        #expect(Self.code(Self.decide(Self.verified(type: .consumable))) == "product-mismatch")
        // A store that does not state the type is not contradicted.
        #expect(Self.decide(Self.verified(type: nil)) == .success(.production))
    }

    @Test func decideChecksTheClaimedTransactionId() {
        #expect(Self.code(Self.decide(Self.verified(), claim: Self.claim(transactionId: "2000000000000009"))) == "transaction-mismatch")
        // The original transaction id (a restore) and no claimed id at all are consistent.
        #expect(Self.decide(Self.verified(), claim: Self.claim(transactionId: "2000000000000001")) == .success(.production))
        #expect(Self.decide(Self.verified(), claim: Self.claim(transactionId: "")) == .success(.production))
    }

    @Test func aSandboxAccountGetsOnlySandboxPurchases() {
        #expect(Self.decide(Self.verified(environment: .sandbox), sandboxAccount: true) == .success(.sandbox))
        #expect(Self.decide(Self.verified(environment: .production), sandboxAccount: true) == .failure(
            .wrongEnvironment("A sandbox account cannot present a Production purchase.")))
        #expect(Self.code(Self.decide(Self.verified(environment: .production), sandboxAccount: true, allowSandbox: true)) == "wrong-environment")
    }

    @Test func aProductionAccountPresentsSandboxOnlyWhenTheAppAllowsIt() {
        #expect(Self.code(Self.decide(Self.verified(environment: .sandbox))) == "wrong-environment")
        #expect(Self.decide(Self.verified(environment: .sandbox), allowSandbox: true) == .success(.sandbox))
    }

    @Test func expiredAndRevokedPurchasesAreNotRefused() {
        var expired = Self.verified()
        expired.expiresDate = C.day(-300)
        expired.revocationDate = C.day(-1)
        #expect(Self.decide(expired) == .success(.production))
    }
}
