import Foundation
import SoukCore
import Testing

/// The catalog file's `offers` and who may have them (docs/commerce.md "Promotional offers").
@Suite struct SubscriptionOfferTests {
    typealias C = ReaderCatalog
    static let production: Set<CommerceEnvironment> = [.production]

    static func withOffers(_ offers: String) -> String {
        CatalogFileTests.broken(#""promoted": {"order": 1, "visible": true} },"#,
                                #""promoted": {"order": 1, "visible": true}, "offers": "# + offers + " },")
    }

    @Test func readsOffersOfAnAutoRenewableAndWritesThemBack() throws {
        let catalog = try CatalogFile.parse(Self.withOffers(#"[{"id": "winback50", "eligibility": "lapsed"}, {"id": "welcome"},"#
                                                            + #" {"id": "first.month", "eligibility": "never-subscribed"}]"#))
        #expect(catalog.products[0].offers == [SubscriptionOffer(id: "winback50", eligibility: .lapsed), SubscriptionOffer(id: "welcome"),
                                               SubscriptionOffer(id: "first.month", eligibility: .neverSubscribed)])
        let text = CatalogFile.encode(catalog)
        #expect(text.contains(#"{"id": "welcome", "eligibility": "any"}"#))
        #expect(try CatalogFile.parse(text) == catalog)
    }

    @Test(arguments: [
        (#"[{"id": "a", "eligibility": "lapsing"}]"#, "products[0].offers[0].eligibility"),
        (#"[{"id": "a", "price": 1}]"#, "products[0].offers[0].price"),
        (#"[{"eligibility": "any"}]"#, "products[0].offers[0].id"),
        (#"[{"id": "has space"}]"#, "products[0].offers[0].id"),
        (#"[{"id": "a"}, {"id": "b"}, {"id": "a"}]"#, "products[0].offers[2].id"),
        (#"{"id": "a"}"#, "products[0].offers"),
    ])
    func aBadOfferNamesItsPath(offers: String, path: String) {
        #expect(CatalogFileTests.errorPath(Self.withOffers(offers)) == path)
    }

    @Test func onlyAnAutoRenewableHasOffers() {
        let text = CatalogFileTests.broken(#""duration": "P30D", "title": {"en-US": "Pass"},"#,
                                           #""duration": "P30D", "title": {"en-US": "Pass"}, "offers": [{"id": "a"}],"#)
        #expect(CatalogFileTests.errorPath(text) == "products[3].offers")
    }

    @Test func changingOffersIsAProductChangeTheAuditLogShows() throws {
        let before = try CatalogFile.parse(CatalogFileTests.valid)
        let after = try CatalogFile.parse(Self.withOffers(#"[{"id": "winback50", "eligibility": "lapsed"}]"#))
        let diff = try CatalogDiff.between(CommerceCatalogState(catalog: before, revision: 1, modifiedAt: C.epoch), after)
        #expect(diff.changedProducts == [CatalogDiff.ProductChange(id: "reader.monthly", fields: ["offers"])])
        #expect(diff.changes == [FieldChange("product reader.monthly: offers", before: nil,
                                             after: #"[{"id":"winback50","eligibility":"lapsed"}]"#)])
    }

    // MARK: Eligibility

    static func history(_ records: [PurchaseRecord], at day: Double, environments: Set<CommerceEnvironment> = production)
        -> OfferEligibilityRule.GroupHistory {
        OfferEligibilityRule.history(in: "plans", records: records, catalog: C.state(), environments: environments, at: C.day(day))
    }

    @Test func aPersonWithoutAPlanOfTheGroupNeverSubscribedWhateverElseTheyBought() {
        #expect(Self.history([], at: 0) == .neverSubscribed)
        #expect(Self.history([C.purchase(C.book), C.purchase(C.pass, expires: 30)], at: 10) == .neverSubscribed)
    }

    @Test func anyPlanOfTheGroupCountsActiveUntilItEndsThenLapsed() {
        let yearly = C.purchase(C.yearly, bought: 0, expires: 365)
        #expect(Self.history([yearly], at: 10) == .active)
        #expect(Self.history([yearly], at: 400) == .lapsed)
        // A refunded plan ended at once, but the person subscribed once.
        #expect(Self.history([C.purchase(C.monthly, bought: 0, expires: 30, revoked: 2)], at: 10) == .lapsed)
        // One lapsed plan and one active: active.
        #expect(Self.history([C.purchase(C.monthly, bought: 0, expires: 30), C.purchase(C.yearly, bought: 40, expires: 400)], at: 50) == .active)
    }

    @Test func aGracePeriodIsStillActive() {
        var monthly = C.purchase(C.monthly, bought: 0, expires: 30)
        monthly.graceExpiresDate = C.day(36)
        #expect(Self.history([monthly], at: 33) == .active)
        #expect(Self.history([monthly], at: 37) == .lapsed)
    }

    @Test func onlyTheEnvironmentsThePersonSeesCount() {
        let sandbox = C.purchase(C.monthly, .sandbox, bought: 0, expires: 30)
        #expect(Self.history([sandbox], at: 10) == .neverSubscribed)
        #expect(Self.history([sandbox], at: 10, environments: [.production, .sandbox]) == .active)
    }

    @Test func eachEligibilityAdmitsItsPeople() {
        let lapsed = SubscriptionOffer(id: "w", eligibility: .lapsed), never = SubscriptionOffer(id: "n", eligibility: .neverSubscribed)
        for history in [OfferEligibilityRule.GroupHistory.neverSubscribed, .lapsed, .active] {
            #expect(OfferEligibilityRule.admits(SubscriptionOffer(id: "a"), history: history))
            #expect(OfferEligibilityRule.admits(lapsed, history: history) == (history == .lapsed))
            #expect(OfferEligibilityRule.admits(never, history: history) == (history == .neverSubscribed))
        }
    }
}

/// The offer key in `stores.apple_store`, by reference like `privateKeyPath`.
@Suite struct OfferKeySettingsTests {
    @Test func theOfferKeyIsReadByReferenceAndWrittenBack() throws {
        let stores = try CatalogFile.stores(json: #"{"apple_store": {"issuerId": "i", "offerKeyId": "OFFER1", "offerPrivateKeyPath": "/etc/souk/offer.p8"}}"#)
        #expect(stores.apple?.offerKeyId == "OFFER1" && stores.apple?.offerPrivateKey == .path("/etc/souk/offer.p8"))
        #expect(try CatalogFile.stores(json: CatalogFile.jsonValue(stores).compactText()) == stores)
        let fromEnv = try CatalogFile.stores(json: #"{"apple_store": {"offerPrivateKeyEnv": "READER_OFFER_KEY"}}"#)
        #expect(fromEnv.apple?.offerPrivateKey == .env("READER_OFFER_KEY"))
    }

    @Test func theKeyIsAFileOrAVariableNeverBoth() {
        do {
            _ = try CatalogFile.stores(json: #"{"apple_store": {"offerPrivateKeyPath": "/a", "offerPrivateKeyEnv": "B"}}"#)
            Issue.record("both were accepted")
        } catch {
            #expect(error.path == "stores.apple_store.offerPrivateKeyEnv")
        }
    }
}
