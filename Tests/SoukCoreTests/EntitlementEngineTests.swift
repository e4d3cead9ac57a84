import Foundation
import SoukCore
import Testing

@Suite struct EntitlementEngineTests {
    typealias C = ReaderCatalog
    static let production: Set<CommerceEnvironment> = [.production]

    static func evaluate(_ purchases: [PurchaseRecord], at day: Double, environments: Set<CommerceEnvironment> = production,
                         catalog: CommerceCatalogState? = C.state()) -> EntitlementSnapshot {
        EntitlementEngine.evaluate(purchases, catalog: catalog, environments: environments, at: C.day(day))
    }

    @Test func environmentsKeepSandboxApartUnlessTheAppAllowsIt() {
        #expect(EntitlementEngine.environments(accountIsSandbox: true, allowSandbox: false) == [.sandbox])
        #expect(EntitlementEngine.environments(accountIsSandbox: true, allowSandbox: true) == [.sandbox])
        #expect(EntitlementEngine.environments(accountIsSandbox: false, allowSandbox: false) == [.production])
        #expect(EntitlementEngine.environments(accountIsSandbox: false, allowSandbox: true) == [.production, .sandbox])
    }

    @Test func nobodyWithoutPurchasesIsEntitled() {
        let snapshot = Self.evaluate([], at: 0)
        #expect(snapshot == EntitlementSnapshot())
        #expect(snapshot.access(to: "premium") == nil)
    }

    @Test func anActiveSubscriptionEntitlesItsProductAndEntitlements() throws {
        let monthly = C.purchase(C.monthly, bought: 0, expires: 30)
        let snapshot = Self.evaluate([monthly], at: 10)
        let access = ProductAccess(productId: "reader.monthly", startedAt: C.day(0), expiresAt: C.day(30), paymentId: monthly.paymentId,
                                   environment: .production)
        // The 30-day pass grants only premium too: the monthly plan opens it.
        #expect(snapshot.products == ["reader.monthly": access, "reader.pass.30d": access])
        #expect(snapshot.entitlements == ["premium": access])
        #expect(snapshot.activePurchases == [access])
        #expect(snapshot.access(to: "reader.monthly") == access)
        #expect(snapshot.access(to: "premium") == access)
        #expect(snapshot.access(to: "offline") == nil)
        #expect(snapshot.access(to: "reader.yearly") == nil)
    }

    @Test func anExpiredSubscriptionEntitlesNothing() {
        let monthly = C.purchase(C.monthly, bought: 0, expires: 30)
        #expect(Self.evaluate([monthly], at: 30) == EntitlementSnapshot())
        #expect(Self.evaluate([monthly], at: 45) == EntitlementSnapshot())
        #expect(Self.evaluate([monthly], at: 29.999).access(to: "premium") != nil)
    }

    @Test func aRevocationEndsAccessAtOnce() {
        let book = C.purchase(C.book, bought: 0, revoked: 5)
        #expect(Self.evaluate([book], at: 4).access(to: "reader.book.1")?.expiresAt == C.day(5))
        #expect(Self.evaluate([book], at: 5) == EntitlementSnapshot())
        let monthly = C.purchase(C.monthly, bought: 0, expires: 30, revoked: 2)
        #expect(Self.evaluate([monthly], at: 3).access(to: "premium") == nil)
        #expect(Self.evaluate([monthly], at: 1).access(to: "premium")?.expiresAt == C.day(2))
    }

    @Test func aPurchaseCountsFromItsPurchaseDateWithAFewMinutesOfClockSkew() {
        let book = C.purchase(C.book, bought: 10)
        #expect(Self.evaluate([book], at: 9) == EntitlementSnapshot())
        let skew = EntitlementEngine.clockSkewAllowance / 86_400
        #expect(Self.evaluate([book], at: 10 - skew).access(to: "book1") != nil)
        #expect(Self.evaluate([book], at: 10 - skew * 1.01) == EntitlementSnapshot())
    }

    @Test func aNonConsumableNeverEnds() {
        let book = C.purchase(C.book, bought: 0)
        let snapshot = Self.evaluate([book], at: 10_000)
        #expect(snapshot.products["reader.book.1"]?.expiresAt == nil)
        #expect(snapshot.entitlements["book1"]?.paymentId == book.paymentId)
    }

    @Test func consumablesNeverAppear() {
        let coins = C.purchase(C.coins, bought: 0, quantity: 5)
        let snapshot = Self.evaluate([coins], at: 1)
        #expect(snapshot == EntitlementSnapshot())
        #expect(snapshot.access(to: "reader.coins.100") == nil)
    }

    @Test func theYearlyPlanOpensWhatTheMonthlyOpens() throws {
        let yearly = C.purchase(C.yearly, bought: 0, expires: 365)
        let snapshot = Self.evaluate([yearly], at: 100)
        // The yearly grants premium + offline; the monthly needs only premium; the offline add-on only offline.
        #expect(Set(snapshot.products.keys) == ["reader.yearly", "reader.monthly", "reader.offline", "reader.pass.30d"])
        let covered = try #require(snapshot.products["reader.monthly"])
        #expect(covered.paymentId == yearly.paymentId)
        #expect(covered.productId == "reader.yearly")
        #expect(covered.expiresAt == C.day(365))
        // Only the bought product is an active purchase.
        #expect(snapshot.activePurchases.map(\.productId) == ["reader.yearly"])
        #expect(snapshot.productIds == ["reader.monthly", "reader.offline", "reader.pass.30d", "reader.yearly"])
    }

    @Test func theMonthlyDoesNotOpenTheYearly() {
        let snapshot = Self.evaluate([C.purchase(C.monthly, bought: 0, expires: 30)], at: 1)
        #expect(snapshot.products["reader.yearly"] == nil)
    }

    @Test func purchasesTogetherCoverAProductNeitherCoversAlone() throws {
        let monthly = C.purchase(C.monthly, bought: 0, expires: 30)
        let offline = C.purchase(C.offlineAddOn, bought: 2)
        let snapshot = Self.evaluate([monthly, offline], at: 10)
        // premium (monthly, ends day 30) + offline (add-on, never ends) = the yearly's set, open while both are.
        let yearly = try #require(snapshot.products["reader.yearly"])
        #expect(yearly.expiresAt == C.day(30))
        #expect(yearly.paymentId == monthly.paymentId)
        #expect(Self.evaluate([monthly, offline], at: 31).products["reader.yearly"] == nil)
    }

    @Test func theLatestExpiryWins() throws {
        let early = C.purchase(C.monthly, bought: 0, expires: 30)
        let late = C.purchase(C.monthly, bought: 20, expires: 50)
        for order in [[early, late], [late, early]] {
            let snapshot = Self.evaluate(order, at: 25)
            #expect(snapshot.products["reader.monthly"]?.paymentId == late.paymentId)
            #expect(snapshot.entitlements["premium"]?.expiresAt == C.day(50))
            #expect(snapshot.activePurchases.map(\.paymentId) == [early.paymentId, late.paymentId])
        }
        // A purchase that never ends outranks any expiry.
        let book = C.purchase(C.oldPlan, bought: 0)
        #expect(Self.evaluate([late, book], at: 25).entitlements["premium"]?.expiresAt == nil)
    }

    @Test func aRetiredProductsBuyersStayEntitled() {
        let legacy = C.purchase(C.legacy, bought: 0)
        let snapshot = Self.evaluate([legacy], at: 400)
        #expect(snapshot.access(to: "reader.legacy")?.paymentId == legacy.paymentId)
        #expect(snapshot.access(to: "legacy")?.paymentId == legacy.paymentId)
    }

    @Test func aRetiredProductIsNeverCoveredWithoutBeingBought() {
        // The retired old plan grants only premium, which the monthly grants: it stays closed.
        let snapshot = Self.evaluate([C.purchase(C.monthly, bought: 0, expires: 30)], at: 1)
        #expect(snapshot.products["reader.old-plan"] == nil)
        // Bought, the retired old plan opens premium and with it the monthly plan (on sale).
        let old = C.purchase(C.oldPlan, bought: 0)
        let owned = Self.evaluate([old], at: 1)
        #expect(owned.products["reader.old-plan"]?.paymentId == old.paymentId)
        #expect(owned.products["reader.monthly"]?.paymentId == old.paymentId)
    }

    @Test func aProductThatGrantsNothingIsNotCoveredByEverything() {
        var catalog = C.state()
        catalog.catalog.products.append(ProductDefinition(id: "reader.tip", type: .nonConsumable, skus: [.appleStore: "tip"]))
        let snapshot = Self.evaluate([C.purchase(C.yearly, bought: 0, expires: 365)], at: 1, catalog: catalog)
        #expect(snapshot.products["reader.tip"] == nil)
    }

    @Test func sandboxAndProductionNeverMix() {
        let sandbox = C.purchase(C.monthly, .sandbox, bought: 0, expires: 30)
        #expect(Self.evaluate([sandbox], at: 1) == EntitlementSnapshot())
        #expect(Self.evaluate([sandbox], at: 1, environments: [.sandbox]).access(to: "premium")?.environment == .sandbox)
        let production = C.purchase(C.book, bought: 0)
        #expect(Self.evaluate([production], at: 1, environments: [.sandbox]) == EntitlementSnapshot())
    }

    @Test func aProductionAccountOfAnAppAllowingSandboxSeesBoth() {
        let sandbox = C.purchase(C.monthly, .sandbox, bought: 0, expires: 30)
        let production = C.purchase(C.monthly, bought: 0, expires: 30)
        let both = EntitlementEngine.environments(accountIsSandbox: false, allowSandbox: true)
        let snapshot = Self.evaluate([sandbox, production], at: 1, environments: both)
        // Same expiry: Production stands for the product.
        #expect(snapshot.products["reader.monthly"]?.environment == .production)
        #expect(snapshot.activePurchases.count == 2)
        #expect(Self.evaluate([sandbox], at: 1, environments: both).access(to: "premium")?.environment == .sandbox)
    }

    @Test func withoutACatalogOnlyBoughtProductsCount() {
        let yearly = C.purchase(C.yearly, bought: 0, expires: 365)
        let snapshot = Self.evaluate([yearly], at: 1, catalog: nil)
        #expect(Array(snapshot.products.keys) == ["reader.yearly"])
        #expect(snapshot.entitlements.isEmpty)
    }

    // MARK: non-renewing

    @Test func aNonRenewingPassRunsForItsDuration() {
        let pass = C.purchase(C.pass, bought: 0)
        #expect(Self.evaluate([pass], at: 29).access(to: "reader.pass.30d")?.expiresAt == C.day(30))
        #expect(Self.evaluate([pass], at: 29).access(to: "premium")?.paymentId == pass.paymentId)
        #expect(Self.evaluate([pass], at: 30) == EntitlementSnapshot())
    }

    @Test func aSecondPassExtendsTheFirst() {
        let first = C.purchase(C.pass, bought: 0)
        let second = C.purchase(C.pass, bought: 10)
        let ends = EntitlementEngine.nonRenewingEnds([second, first], catalog: C.state())
        #expect(ends == [first.paymentId: C.day(30), second.paymentId: C.day(60)])
        #expect(Self.evaluate([first, second], at: 45).access(to: "reader.pass.30d")?.paymentId == second.paymentId)
        #expect(Self.evaluate([first, second], at: 15).access(to: "reader.pass.30d")?.expiresAt == C.day(60))
        #expect(Self.evaluate([first, second], at: 60) == EntitlementSnapshot())
    }

    @Test func aPassBoughtAfterTheLastEndedStartsAtItsPurchase() {
        let first = C.purchase(C.pass, bought: 0)
        let later = C.purchase(C.pass, bought: 100)
        #expect(EntitlementEngine.nonRenewingEnds([first, later], catalog: C.state()) == [first.paymentId: C.day(30), later.paymentId: C.day(130)])
        #expect(Self.evaluate([first, later], at: 50) == EntitlementSnapshot())
    }

    @Test func passesChainPerEnvironment() {
        let production = C.purchase(C.pass, bought: 0)
        let sandbox = C.purchase(C.pass, .sandbox, bought: 5)
        #expect(EntitlementEngine.nonRenewingEnds([production, sandbox], catalog: C.state())
            == [production.paymentId: C.day(30), sandbox.paymentId: C.day(35)])
    }

    @Test func aQuantityOfPassesRunsBackToBack() {
        let pass = C.purchase(C.pass, bought: 0, quantity: 3)
        #expect(EntitlementEngine.nonRenewingEnds([pass], catalog: C.state()) == [pass.paymentId: C.day(90)])
    }

    @Test func aRefundedPassDoesNotPushTheNextOneOut() {
        let refunded = C.purchase(C.pass, bought: 0, revoked: 5)
        let next = C.purchase(C.pass, bought: 3)
        // The next pass starts when the refunded one lost its access (day 5), not at day 30.
        #expect(EntitlementEngine.nonRenewingEnds([refunded, next], catalog: C.state()) == [refunded.paymentId: C.day(30), next.paymentId: C.day(35)])
        #expect(Self.evaluate([refunded, next], at: 6).access(to: "reader.pass.30d")?.paymentId == next.paymentId)
    }

    @Test func aPassOfAnUnknownProductKeepsTheStoresExpiryOrNothing() {
        let unknown = PurchaseRecord(paymentId: UUID(), productId: "reader.gone", type: .nonRenewing, environment: .production,
                                     purchaseDate: C.day(0), expiresDate: C.day(7))
        let noExpiry = PurchaseRecord(paymentId: UUID(), productId: "reader.gone2", type: .nonRenewing, environment: .production,
                                      purchaseDate: C.day(0))
        #expect(EntitlementEngine.nonRenewingEnds([unknown, noExpiry], catalog: C.state()) == [unknown.paymentId: C.day(7)])
        let snapshot = Self.evaluate([unknown, noExpiry], at: 1)
        #expect(snapshot.products["reader.gone"]?.expiresAt == C.day(7))
        #expect(snapshot.products["reader.gone2"] == nil)
    }

    @Test func theAnswerDoesNotDependOnTheOrderPurchasesAreRead() {
        let purchases = [
            C.purchase(C.monthly, bought: 0, expires: 30), C.purchase(C.monthly, .sandbox, bought: 1, expires: 31),
            C.purchase(C.offlineAddOn, bought: 2), C.purchase(C.pass, bought: 3), C.purchase(C.pass, bought: 4),
            C.purchase(C.book, bought: 5, revoked: 6), C.purchase(C.legacy, bought: 1), C.purchase(C.coins, bought: 2),
        ]
        let both: Set<CommerceEnvironment> = [.production, .sandbox]
        let expected = Self.evaluate(purchases, at: 20, environments: both)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            #expect(Self.evaluate(purchases.shuffled(using: &generator), at: 20, environments: both) == expected)
        }
        #expect(Set(expected.products.keys) == ["reader.monthly", "reader.offline", "reader.pass.30d", "reader.legacy", "reader.yearly"])
    }

    // MARK: next change

    @Test func theNextChangeIsTheFirstStartEndOrRevocationAhead() {
        let skew = EntitlementEngine.clockSkewAllowance
        let monthly = C.purchase(C.monthly, bought: 0, expires: 30)
        let book = C.purchase(C.book, bought: 5, revoked: 20)
        let pass = C.purchase(C.pass, bought: 40)
        let purchases = [monthly, book, pass]
        let next = { (day: Double) in EntitlementEngine.nextChange(purchases, catalog: C.state(), environments: Self.production, after: C.day(day)) }
        #expect(next(1) == C.day(5).addingTimeInterval(-skew))
        #expect(next(10) == C.day(20))
        #expect(next(20) == C.day(30))
        #expect(next(30) == C.day(40).addingTimeInterval(-skew))
        #expect(next(40) == C.day(70))
        #expect(next(70) == nil)
        // Purchases of environments not asked, and consumables, change nothing.
        let others = [C.purchase(C.monthly, .sandbox, bought: 0, expires: 3), C.purchase(C.coins, bought: 2)]
        #expect(EntitlementEngine.nextChange(others, catalog: C.state(), environments: Self.production, after: C.day(1)) == nil)
    }

    @Test func theSnapshotStaysTheSameUntilTheNextChange() {
        var generator = SystemRandomNumberGenerator()
        let products = [C.monthly, C.yearly, C.book, C.pass, C.offlineAddOn, C.legacy, C.coins]
        let both: Set<CommerceEnvironment> = [.production, .sandbox]
        for _ in 0..<200 {
            let purchases = (0..<Int.random(in: 1...6, using: &generator)).map { _ in
                let product = products.randomElement(using: &generator)!
                let bought = Double(Int.random(in: 0...60, using: &generator))
                return C.purchase(product, Bool.random(using: &generator) ? .production : .sandbox, bought: bought,
                                  expires: product.type == .autoRenewable ? bought + Double(Int.random(in: 1...40, using: &generator)) : nil,
                                  revoked: Int.random(in: 0...4, using: &generator) == 0 ? bought + Double(Int.random(in: 0...30, using: &generator)) : nil)
            }
            var now = C.day(-1)
            while true {
                let snapshot = EntitlementEngine.evaluate(purchases, catalog: C.state(), environments: both, at: now)
                let next = EntitlementEngine.nextChange(purchases, catalog: C.state(), environments: both, after: now)
                let until = next ?? C.day(200)
                for fraction in [0.25, 0.5, 0.999] {
                    let instant = now.addingTimeInterval(until.timeIntervalSince(now) * fraction)
                    #expect(EntitlementEngine.evaluate(purchases, catalog: C.state(), environments: both, at: instant) == snapshot)
                }
                guard let next else { break }
                now = next
            }
        }
    }
}
