import Foundation
import SoukCore
import Testing

@Suite struct StoreKitImportTests {
    /// An Xcode 16 StoreKit configuration file (format version 4) with one product of each kind.
    static let fixture: [UInt8] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/Reader.storekit")
        guard let data = FileManager.default.contents(atPath: url.path) else { preconditionFailure("missing \(url.path)") }
        return Array(data)
    }()

    static let options = StoreKitConfiguration.Options(nonRenewingDuration: ISODuration(days: 30))

    @Test func importsProductsSubscriptionGroupsAndPrices() throws {
        let catalog = try StoreKitConfiguration.parse(Self.fixture, app: "com.example.reader", options: Self.options)
        #expect(catalog.app == "com.example.reader")
        #expect(catalog.products.map(\.id) == ["com.example.reader.coins100", "com.example.reader.book1", "com.example.reader.pass30",
                                               "com.example.reader.monthly", "com.example.reader.yearly"])
        #expect(catalog.products.map(\.type) == [.consumable, .nonConsumable, .nonRenewing, .autoRenewable, .autoRenewable])
        #expect(catalog.products.allSatisfy { $0.skus == [.appleStore: $0.id] })
        #expect(catalog.entitlements == [EntitlementDefinition(id: "reader-plus", title: "Reader Plus")])

        let book = catalog.products[1]
        #expect(book.title == ["en-US": "Book 1", "fr-FR": "Livre 1"])
        #expect(book.description["fr-FR"] == "Le premier livre, à garder")
        #expect(book.prices == [Price(currency: "USD", amount: 699)])
        #expect(book.familyShareable)
        #expect(catalog.products[2].duration == ISODuration(days: 30))

        let monthly = catalog.products[3]
        #expect(monthly.group == "Reader Plus" && monthly.level == 2 && monthly.period == ISODuration(months: 1))
        #expect(monthly.prices == [Price(currency: "USD", amount: 499)])
        #expect(monthly.introductoryOffer == IntroductoryOffer(mode: .freeTrial, period: ISODuration(weeks: 1)))
        #expect(monthly.entitlements == ["reader-plus"])
        let yearly = catalog.products[4]
        #expect(yearly.level == 1 && yearly.period == ISODuration(years: 1))
        #expect(yearly.introductoryOffer == IntroductoryOffer(mode: .payAsYouGo, period: ISODuration(months: 1), periods: 3,
                                                              prices: [Price(currency: "USD", amount: 199)]))
        // What comes in is a valid catalog file.
        #expect(try CatalogFile.parse(CatalogFile.encode(catalog)) == catalog)
    }

    @Test func pricesFollowTheStorefrontCurrencyInItsMinorUnits() throws {
        let text = String(decoding: Self.fixture, as: UTF8.self)
        var yen = text.replacingOccurrences(of: "\"USA\"", with: "\"JPN\"")
        for (dollars, amount) in [("0.99", "120"), ("6.99", "980"), ("2.99", "400"), ("4.99", "650"), ("49.99", "6500"), ("1.99", "250")] {
            yen = yen.replacingOccurrences(of: "\"\(dollars)\"", with: "\"\(amount)\"")
        }
        let japan = try StoreKitConfiguration.parse(Array(yen.utf8), app: "com.example.reader", options: Self.options)
        #expect(japan.products[4].introductoryOffer?.prices == [Price(currency: "JPY", amount: 250)])
        #expect(japan.products[1].prices == [Price(currency: "JPY", amount: 980)])
        let fractionOfAYen = Array(text.replacingOccurrences(of: "\"USA\"", with: "\"JPN\"").utf8)
        let error = #expect(throws: CatalogFileError.self) {
            try StoreKitConfiguration.parse(fractionOfAYen, app: "com.example.reader", options: Self.options)
        }
        #expect(error?.path == "products[0].displayPrice")
        let unknown = Array(text.replacingOccurrences(of: "\"USA\"", with: "\"XYZ\"").utf8)
        let storefront = #expect(throws: CatalogFileError.self) { try StoreKitConfiguration.parse(unknown, app: "com.example.reader") }
        #expect(storefront?.path == "settings._storefront")
        let euro = try StoreKitConfiguration.parse(unknown, app: "com.example.reader",
                                                   options: .init(nonRenewingDuration: ISODuration(days: 30), currency: "EUR"))
        #expect(euro.products[0].prices == [Price(currency: "EUR", amount: 99)])
    }

    @Test func aNonRenewingSubscriptionNeedsItsDurationGiven() {
        let error = #expect(throws: CatalogFileError.self) { try StoreKitConfiguration.parse(Self.fixture, app: "com.example.reader") }
        #expect(error?.path == "nonRenewingSubscriptions[0].productID")
    }

    @Test func refusesFilesThatAreNotStoreKitConfigurations() {
        #expect(throws: CatalogFileError.self) { try StoreKitConfiguration.parse(Array("{\"app\": \"x\"}".utf8), app: "com.example.reader") }
        let text = String(decoding: Self.fixture, as: UTF8.self).replacingOccurrences(of: "\"P1Y\"", with: "\"P5M\"")
        let error = #expect(throws: CatalogFileError.self) {
            try StoreKitConfiguration.parse(Array(text.utf8), app: "com.example.reader", options: Self.options)
        }
        #expect(error?.path == "products[4].period")
    }

    @Test func mergingKeepsSoukIdsEntitlementsOtherStoresAndPromotion() throws {
        let imported = try StoreKitConfiguration.parse(Self.fixture, app: "com.example.reader", options: Self.options)
        let current = CommerceCatalog(app: "com.example.reader", entitlements: [EntitlementDefinition(id: "premium", title: "Premium")], products: [
            ProductDefinition(id: "reader.monthly", type: .autoRenewable, group: "plans", level: 2, period: ISODuration(months: 1),
                              title: ["en-US": "Old"], skus: [.appleStore: "com.example.reader.monthly", .googlePlay: "monthly"],
                              entitlements: ["premium"], promoted: Promotion(order: 1, visible: true)),
            ProductDefinition(id: "reader.android.only", type: .nonConsumable, title: ["en-US": "Android"], skus: [.googlePlay: "android_only"]),
            ProductDefinition(id: "reader.old", type: .nonConsumable, title: ["en-US": "Gone"], skus: [.appleStore: "com.example.reader.old"]),
        ])
        let merged = StoreKitConfiguration.merge(imported, into: current)
        try CatalogFile.validate(merged)
        #expect(merged.products.map(\.id) == ["com.example.reader.coins100", "com.example.reader.book1", "com.example.reader.pass30",
                                              "reader.monthly", "com.example.reader.yearly", "reader.android.only"])
        let monthly = merged.products[3]
        #expect(monthly.title == ["en-US": "Monthly"])
        #expect(monthly.entitlements == ["premium"])
        #expect(monthly.skus == [.appleStore: "com.example.reader.monthly", .googlePlay: "monthly"])
        #expect(monthly.promoted == Promotion(order: 1, visible: true))
        #expect(monthly.group == "Reader Plus")
        #expect(merged.entitlements.map(\.id) == ["premium", "reader-plus"])
    }
}
