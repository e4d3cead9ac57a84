import Foundation
import SoukCore
import Testing

@Suite struct CatalogFileTests {
    static let valid = """
        { "app": "com.example.reader",
          "entitlements": [ {"id": "premium", "title": "Premium"} ],
          "products": [
            { "id": "reader.monthly", "type": "auto-renewable", "group": "plans", "level": 2,
              "period": "P1M", "title": {"en-US": "Monthly"}, "description": {"en-US": "All books"},
              "prices": [ {"currency": "USD", "amount": 499} ], "entitlements": ["premium"],
              "introductoryOffer": {"mode": "pay-as-you-go", "period": "P1M", "periods": 3, "prices": [{"currency": "USD", "amount": 99}]},
              "skus": {"apple_store": "com.example.reader.monthly", "google_play": "monthly",
                       "amazon": "reader.monthly.term", "roku": "reader-monthly"},
              "promoted": {"order": 1, "visible": true} },
            { "id": "reader.coins.100", "type": "consumable", "title": {"en-US": "100 coins"},
              "prices": [ {"currency": "JPY", "amount": 120} ], "skus": {"apple_store": "coins100"} },
            { "id": "reader.book.1", "type": "non-consumable", "title": {"en-US": "Book"}, "familyShareable": true },
            { "id": "reader.pass.30d", "type": "non-renewing", "duration": "P30D", "title": {"en-US": "Pass"},
              "entitlements": ["premium"] } ] }
        """

    /// The valid file with `old` replaced by `new` (which must occur).
    static func broken(_ old: String, _ new: String) -> String {
        precondition(valid.contains(old), "\(old) is not in the sample")
        return valid.replacingOccurrences(of: old, with: new)
    }

    static func errorPath(_ text: String) -> String? {
        do {
            _ = try CatalogFile.parse(text)
            return nil
        } catch {
            return error.path
        }
    }

    @Test func readsEveryFieldOfTheDocumentedFormat() throws {
        let catalog = try CatalogFile.parse(Self.valid)
        #expect(catalog.app == "com.example.reader")
        #expect(!catalog.allowSandbox)
        #expect(catalog.entitlements == [EntitlementDefinition(id: "premium", title: "Premium")])
        #expect(catalog.products.map(\.id) == ["reader.monthly", "reader.coins.100", "reader.book.1", "reader.pass.30d"])
        let monthly = catalog.products[0]
        #expect(monthly.type == .autoRenewable && monthly.group == "plans" && monthly.level == 2)
        #expect(monthly.period == ISODuration(months: 1))
        #expect(monthly.prices == [Price(currency: "USD", amount: 499)])
        #expect(monthly.introductoryOffer == IntroductoryOffer(mode: .payAsYouGo, period: ISODuration(months: 1), periods: 3,
                                                               prices: [Price(currency: "USD", amount: 99)]))
        #expect(monthly.skus[.amazon] == "reader.monthly.term" && monthly.skus[.roku] == "reader-monthly")
        #expect(monthly.promoted == Promotion(order: 1, visible: true))
        #expect(catalog.products[2].familyShareable)
        #expect(catalog.products[3].duration == ISODuration(days: 30))
    }

    @Test func writesTheFileBackSoThatReadingItGivesTheSameCatalog() throws {
        let catalog = try CatalogFile.parse(Self.valid)
        let text = CatalogFile.encode(catalog)
        #expect(try CatalogFile.parse(text) == catalog)
        #expect(try CatalogFile.parse(CatalogFile.encode(catalog, pretty: false)) == catalog)
        #expect(text.hasPrefix("{\n  \"app\": \"com.example.reader\",\n  \"allowSandbox\": false,"))
        #expect(text.contains("\"prices\": [{\"currency\": \"USD\", \"amount\": 499}]"))
    }

    @Test func namesThePathOfABadPeriod() {
        #expect(Self.errorPath(Self.broken("\"period\": \"P1M\", \"title\"", "\"period\": \"P5M\", \"title\"")) == "products[0].period")
        #expect(Self.errorPath(Self.broken("\"period\": \"P1M\", \"title\"", "\"period\": \"monthly\", \"title\"")) == "products[0].period")
        #expect(Self.errorPath(Self.broken("\"group\": \"plans\", ", "")) == "products[0].group")
        #expect(Self.errorPath(Self.broken("\"duration\": \"P30D\", ", "")) == "products[3].duration")
        #expect(Self.errorPath(Self.broken("\"type\": \"non-consumable\",", "\"type\": \"non-consumable\", \"period\": \"P1M\",")) == "products[2].period")
    }

    @Test func refusesMalformedIdsDuplicatesAndUnknownTypes() {
        #expect(Self.errorPath(Self.broken("\"id\": \"reader.book.1\"", "\"id\": \"reader book\"")) == "products[2].id")
        #expect(Self.errorPath(Self.broken("\"id\": \"reader.book.1\"", "\"id\": \"\(String(repeating: "b", count: 101))\"")) == "products[2].id")
        #expect(Self.errorPath(Self.broken("\"id\": \"reader.book.1\"", "\"id\": \"reader.monthly\"")) == "products[2].id")
        #expect(Self.errorPath(Self.broken("\"type\": \"consumable\"", "\"type\": \"subscription\"")) == "products[1].type")
        #expect(Self.errorPath(Self.broken("\"app\": \"com.example.reader\"", "\"app\": \"com/example\"")) == "app")
        #expect(Self.errorPath(Self.broken("{\"id\": \"premium\", \"title\": \"Premium\"}", "{\"id\": \"premium\", \"title\": \"Premium\"}, {\"id\": \"premium\", \"title\": \"Again\"}")) == "entitlements[1].id")
    }

    @Test func refusesMoneyThatIsNotIntegerMinorUnitsOfAnISO4217Currency() {
        #expect(Self.errorPath(Self.broken("\"amount\": 499", "\"amount\": 4.99")) == "products[0].prices[0].amount")
        #expect(Self.errorPath(Self.broken("\"amount\": 499", "\"amount\": -1")) == "products[0].prices[0].amount")
        #expect(Self.errorPath(Self.broken("\"amount\": 499", "\"amount\": \"499\"")) == "products[0].prices[0].amount")
        #expect(Self.errorPath(Self.broken("\"currency\": \"JPY\"", "\"currency\": \"XYZ\"")) == "products[1].prices[0].currency")
        #expect(Self.errorPath(Self.broken("\"currency\": \"JPY\"", "\"currency\": \"jpy\"")) == "products[1].prices[0].currency")
        #expect(Self.errorPath(Self.broken("{\"currency\": \"USD\", \"amount\": 499}", "{\"currency\": \"USD\", \"amount\": 499}, {\"currency\": \"USD\", \"amount\": 1}")) == "products[0].prices[1].currency")
    }

    @Test func refusesUnknownStoresKeysAndEntitlements() {
        #expect(Self.errorPath(Self.broken("\"roku\": \"reader-monthly\"", "\"tizen\": \"reader-monthly\"")) == "products[0].skus.tizen")
        #expect(Self.errorPath(Self.broken("\"familyShareable\": true", "\"familyShareble\": true")) == "products[2].familyShareble")
        #expect(Self.errorPath(Self.broken("\"app\": \"com.example.reader\",", "\"app\": \"com.example.reader\", \"extra\": 1,")) == "extra")
        #expect(Self.errorPath(Self.broken("\"entitlements\": [\"premium\"] }", "\"entitlements\": [\"gold\"] }")) == "products[3].entitlements[0]")
        #expect(Self.errorPath(Self.broken("\"skus\": {\"apple_store\": \"coins100\"}", "\"skus\": {\"apple_store\": \"coins100\"}, \"entitlements\": [\"premium\"]")) == "products[1].entitlements")
        #expect(Self.errorPath(Self.broken("\"apple_store\": \"coins100\"", "\"apple_store\": \"com.example.reader.monthly\"")) == "products[1].skus.apple_store")
    }

    @Test func refusesMoreThanTwentyPromotedProductsAndARepeatedOrder() throws {
        var catalog = CommerceCatalog(app: "com.example.game")
        for index in 0..<21 {
            catalog.products.append(ProductDefinition(id: "p\(index)", type: .nonConsumable, title: ["en": "P\(index)"],
                                                      promoted: Promotion(order: index + 1, visible: true)))
        }
        let error = #expect(throws: CatalogFileError.self) { try CatalogFile.validate(catalog) }
        #expect(error?.path == "products[20].promoted")
        #expect(error?.message.contains("at most 20") == true)
        catalog.products.removeLast()
        try CatalogFile.validate(catalog)
        catalog.products[19].promoted?.order = 1
        let repeated = #expect(throws: CatalogFileError.self) { try CatalogFile.validate(catalog) }
        #expect(repeated?.path == "products[19].promoted.order")
        catalog.products[19].promoted?.order = 0
        try CatalogFile.validate(catalog)
        catalog.products[19].promoted?.order = -1
        let negative = #expect(throws: CatalogFileError.self) { try CatalogFile.validate(catalog) }
        #expect(negative?.path == "products[19].promoted.order")
    }

    @Test func refusesTextThatIsNotJSONOrHasTheWrongShape() {
        #expect(Self.errorPath("{") == "")
        #expect(Self.errorPath("[]") == "")
        #expect(Self.errorPath("{\"products\": []}") == "app")
        #expect(Self.errorPath("{\"app\": \"a.b\", \"products\": {}}") == "products")
        #expect(Self.errorPath("{\"app\": \"a.b\", \"products\": [{\"id\": \"x\"}]}") == "products[0].type")
        // The stores show their own titles and prices: a product needs only an id and a type.
        #expect(Self.errorPath("{\"app\": \"a.b\", \"products\": [{\"id\": \"x\", \"type\": \"consumable\"}]}") == nil)
        #expect(Self.errorPath(Self.broken("\"title\": {\"en-US\": \"Book\"}", "\"title\": {\"en-US\": \"\"}")) == "products[2].title.en-US")
    }

    @Test func checksIntroductoryOffersByMode() {
        #expect(Self.errorPath(Self.broken("\"mode\": \"pay-as-you-go\"", "\"mode\": \"free-trial\"")) == "products[0].introductoryOffer.prices")
        #expect(Self.errorPath(Self.broken("\"mode\": \"pay-as-you-go\"", "\"mode\": \"trial\"")) == "products[0].introductoryOffer.mode")
        #expect(Self.errorPath(Self.broken("\"periods\": 3", "\"periods\": 13")) == "products[0].introductoryOffer.periods")
        #expect(Self.errorPath(Self.broken("\"familyShareable\": true", "\"introductoryOffer\": {\"mode\": \"free-trial\", \"period\": \"P1W\"}")) == "products[2].introductoryOffer")
    }

    @Test func theDiffListsAddedChangedRetiredAndSaysNoChangeWhenEqual() throws {
        let catalog = try CatalogFile.parse(Self.valid)
        let state = CommerceCatalogState(catalog: catalog, revision: 1, modifiedAt: Date(timeIntervalSince1970: 0))
        #expect(try CatalogDiff.between(state, catalog).isEmpty)
        #expect(try CatalogDiff.between(state, catalog).lines == ["no change"])
        var next = catalog
        next.products.remove(at: 1)
        next.products[0].title["fr-FR"] = "Mensuel"
        next.products.append(ProductDefinition(id: "reader.book.2", type: .nonConsumable, title: ["en-US": "Book 2"]))
        next.entitlements.append(EntitlementDefinition(id: "extra", title: "Extra"))
        let diff = try CatalogDiff.between(state, next)
        #expect(diff.addedProducts == ["reader.book.2"])
        #expect(diff.changedProducts == [CatalogDiff.ProductChange(id: "reader.monthly", fields: ["title"])])
        #expect(diff.retiredProducts == ["reader.coins.100"])
        #expect(diff.addedEntitlements == ["extra"])
        #expect(!diff.reordered)
        #expect(diff.lines.contains("- product reader.coins.100 (retired: off sale, its buyers keep their entitlements)"))
    }

    @Test func theDiffRefusesARetiredIdOrSKUNamingItsPath() throws {
        let catalog = try CatalogFile.parse(Self.valid)
        var current = catalog
        let coins = current.products.remove(at: 1)
        let state = CommerceCatalogState(catalog: current, retired: [coins], revision: 2, modifiedAt: Date())
        let reused = #expect(throws: CatalogFileError.self) { try CatalogDiff.between(state, catalog) }
        #expect(reused?.path == "products[1].id")
        var renamed = catalog
        renamed.products[1].id = "reader.coins.new"
        let sku = #expect(throws: CatalogFileError.self) { try CatalogDiff.between(state, renamed) }
        #expect(sku?.path == "products[1].skus.apple_store")
    }

    @Test func productListsFollowCatalogOrderAndStore() throws {
        let catalog = try CatalogFile.parse(Self.valid)
        let state = CommerceCatalogState(catalog: catalog, revision: 3, modifiedAt: Date(timeIntervalSince1970: 1_800_000_000.5))
        #expect(ProductLists.v1(state) == ["com.example.reader.monthly", "coins100"])
        #expect(ProductLists.v1(state, store: .roku) == ["reader-monthly"])
        #expect(ProductLists.onSale(state, store: .googlePlay).map(\.id) == ["reader.monthly"])
        #expect(ProductLists.onSale(state, store: nil).count == 4)
        #expect(ProductLists.feedType(.autoRenewable) == "subscription" && ProductLists.feedType(.nonRenewing) == "subscription")
        #expect(ProductLists.feedType(.consumable) == "consumable" && ProductLists.feedType(.nonConsumable) == "consumable")
        #expect(ProductLists.lastModified(state) == 1_800_000_000)
        let later = CommerceCatalogState(catalog: catalog, revision: 4, modifiedAt: state.modifiedAt)
        #expect(ProductLists.entityTag(state, list: "v1") != ProductLists.entityTag(later, list: "v1"))
        #expect(ProductLists.entityTag(state, list: "v1") != ProductLists.entityTag(state, list: "v2"))
        #expect(ProductLists.page(count: 45, offset: 20, limit: 20) == (20..<40, true))
        #expect(ProductLists.page(count: 45, offset: 40, limit: 20) == (40..<45, false))
    }
}
