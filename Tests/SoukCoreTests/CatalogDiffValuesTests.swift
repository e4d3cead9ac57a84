import Foundation
import SoukCore
import Testing

/// What the audit log keeps of a catalog change: every value the diff names, old and new.
@Suite struct CatalogDiffValuesTests {
    /// The reader catalog of SoukTestSupport's samples (products: monthly, yearly, coins, book, pass).
    static let readerFile = """
        {
          "app": "com.example.reader",
          "allowSandbox": true,
          "entitlements": [ {"id": "premium", "title": "Premium"}, {"id": "book.1", "title": "Book 1"} ],
          "products": [
            { "id": "reader.monthly", "type": "auto-renewable", "group": "plans", "level": 2, "period": "P1M",
              "title": {"en-US": "Monthly", "fr-FR": "Mensuel"}, "description": {"en-US": "Every book, every month"},
              "prices": [ {"currency": "USD", "amount": 499}, {"currency": "EUR", "amount": 499} ],
              "introductoryOffer": {"mode": "free-trial", "period": "P1W"},
              "familyShareable": true,
              "entitlements": ["premium"],
              "skus": {"apple_store": "com.example.reader.monthly", "google_play": "monthly",
                       "amazon": "reader.monthly.term", "roku": "reader-monthly"},
              "promoted": {"order": 1, "visible": true} },
            { "id": "reader.yearly", "type": "auto-renewable", "group": "plans", "level": 1, "period": "P1Y",
              "title": {"en-US": "Yearly"}, "prices": [ {"currency": "USD", "amount": 4999} ],
              "entitlements": ["premium", "book.1"],
              "skus": {"apple_store": "com.example.reader.yearly", "google_play": "yearly"},
              "promoted": {"order": 2, "visible": false} },
            { "id": "reader.coins.100", "type": "consumable", "title": {"en-US": "100 coins"},
              "prices": [ {"currency": "USD", "amount": 99} ],
              "skus": {"apple_store": "com.example.reader.coins100", "roku": "reader-coins-100"} },
            { "id": "reader.book.1", "type": "non-consumable", "title": {"en-US": "Book 1"},
              "prices": [ {"currency": "JPY", "amount": 300} ], "entitlements": ["book.1"],
              "skus": {"google_play": "book_1"} },
            { "id": "reader.pass.30d", "type": "non-renewing", "duration": "P30D", "title": {"en-US": "30-day pass"},
              "prices": [ {"currency": "USD", "amount": 299} ], "entitlements": ["premium"],
              "skus": {"apple_store": "com.example.reader.pass30"} }
          ]
        }
        """

    static var reader: CommerceCatalog {
        get throws { try CatalogFile.parse(readerFile) }
    }

    static func state(_ catalog: CommerceCatalog) -> CommerceCatalogState {
        CommerceCatalogState(catalog: catalog, revision: 3, modifiedAt: Date(timeIntervalSince1970: 1_800_000_000))
    }

    @Test func aPriceChangeCarriesTheOldAndNewPricesWithTheirCurrencies() throws {
        let old = try Self.reader
        var next = old
        next.products[0].prices = [Price(currency: "USD", amount: 549), Price(currency: "EUR", amount: 499)]
        next.products[3].prices = [Price(currency: "JPY", amount: 400)]
        let diff = try CatalogDiff.between(Self.state(old), next)
        #expect(diff.lines == ["~ product reader.monthly: prices", "~ product reader.book.1: prices"])
        #expect(diff.changes == [
            FieldChange("product reader.monthly: prices", before: "4.99 USD, 4.99 EUR", after: "5.49 USD, 4.99 EUR"),
            FieldChange("product reader.book.1: prices", before: "300 JPY", after: "400 JPY"),
        ])
        let (before, after) = diff.changes.auditObjects
        #expect(before["product reader.monthly: prices"] == "4.99 USD, 4.99 EUR")
        #expect(after["product reader.monthly: prices"] == "5.49 USD, 4.99 EUR")
    }

    @Test func otherFieldsCarryTheirValuesAsTheFileStatesThem() throws {
        let old = try Self.reader
        var next = old
        next.products[0].title["de-DE"] = "Monatlich"
        next.products[0].introductoryOffer = IntroductoryOffer(mode: .payAsYouGo, period: ISODuration(months: 1), periods: 3,
                                                               prices: [Price(currency: "USD", amount: 99)])
        next.products[0].familyShareable = false
        next.products[1].promoted = nil
        next.entitlements[1].title = "The first book"
        let diff = try CatalogDiff.between(Self.state(old), next)
        #expect(diff.changes == [
            FieldChange("entitlement book.1: title", before: "Book 1", after: "The first book"),
            FieldChange("product reader.monthly: title", before: #"{"en-US":"Monthly","fr-FR":"Mensuel"}"#,
                        after: #"{"de-DE":"Monatlich","en-US":"Monthly","fr-FR":"Mensuel"}"#),
            FieldChange("product reader.monthly: introductoryOffer", before: "free-trial P1W", after: "pay-as-you-go P1M × 3 at 0.99 USD"),
            FieldChange("product reader.monthly: familyShareable", before: "true", after: "false"),
            FieldChange("product reader.yearly: promoted", before: #"{"order":2,"visible":false}"#, after: nil),
        ])
    }

    @Test func addedRetiredAndReorderedProductsAndANewCatalogSayWhatTheyWere() throws {
        let old = try Self.reader
        var next = old
        let pass = next.products.removeLast()
        next.products.swapAt(0, 1)
        next.products.append(ProductDefinition(id: "reader.coins.500", type: .consumable, title: ["en-US": "500 coins"],
                                                prices: [Price(currency: "USD", amount: 399)]))
        next.entitlements.append(EntitlementDefinition(id: "extras", title: "Extras"))
        let diff = try CatalogDiff.between(Self.state(old), next)
        #expect(diff.changes == [
            FieldChange("entitlement extras: title", before: nil, after: "Extras"),
            FieldChange("product reader.coins.500: type", before: nil, after: "consumable"),
            FieldChange("product reader.coins.500: title", before: nil, after: #"{"en-US":"500 coins"}"#),
            FieldChange("product reader.coins.500: prices", before: nil, after: "3.99 USD"),
            FieldChange("product reader.coins.500: familyShareable", before: nil, after: "false"),
            FieldChange("product \(pass.id)", before: "on sale", after: "retired"),
            FieldChange("order of products", before: "reader.monthly, reader.yearly, reader.coins.100, reader.book.1, reader.pass.30d",
                        after: "reader.yearly, reader.monthly, reader.coins.100, reader.book.1, reader.coins.500"),
        ])
        let created = try CatalogDiff.between(nil, old)
        #expect(created.changes.contains(FieldChange("allowSandbox", before: "false", after: "true")))
        #expect(created.changes.contains(FieldChange("product reader.book.1: prices", before: nil, after: "300 JPY")))
        #expect(try CatalogDiff.between(Self.state(old), old).changes.isEmpty)
    }

    @Test func storeSettingsCarryTheirReferencesNeverASecret() throws {
        var old = try Self.reader
        old.stores = CommerceStoreSettings()
        old.stores?.amazon = AmazonSettings(sharedSecret: .env("READER_AMAZON"), sandbox: true)
        var next = old
        next.stores?.amazon = AmazonSettings(sharedSecret: .path("/etc/souk/amazon.secret"), sandbox: false)
        next.stores?.roku = RokuSettings(partnerApiKey: .env("ROKU_KEY"))
        let diff = try CatalogDiff.between(Self.state(old), next)
        #expect(diff.lines == ["~ stores.amazon", "~ stores.roku"])
        #expect(diff.changes == [
            FieldChange("stores.amazon: sharedSecretPath", before: nil, after: "/etc/souk/amazon.secret"),
            FieldChange("stores.amazon: sharedSecretEnv", before: "READER_AMAZON", after: nil),
            FieldChange("stores.amazon: sandbox", before: "true", after: nil),
            FieldChange("stores.roku: partnerApiKeyEnv", before: nil, after: "ROKU_KEY"),
        ])
    }

    @Test func theReviewDigestIsTheTextsSHA256WithLineBreaksAsLF() {
        let text = "{\n  \"app\": \"com.example.reader\"\n}\n"
        #expect(CatalogFile.reviewDigest(of: text) == "b0fc04d939984e3905536c6f4f01a2416a9cdfa50938656bcb9cad9bf201b40e")
        #expect(CatalogFile.reviewDigest(of: "") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(CatalogFile.reviewDigest(of: text.replacingOccurrences(of: "\n", with: "\r\n")) == CatalogFile.reviewDigest(of: text))
        #expect(CatalogFile.reviewDigest(of: text.replacingOccurrences(of: "reader", with: "writer")) != CatalogFile.reviewDigest(of: text))
    }
}
