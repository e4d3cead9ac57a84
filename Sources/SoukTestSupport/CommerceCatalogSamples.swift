import Foundation
import SoukCore

/// Catalog files for tests: the reader app of docs/commerce.md, with one product of each type.
public enum CommerceCatalogSamples {
    public static let readerApp = "com.example.reader"

    /// The reader catalog as a file (valid; products in this order: monthly, yearly, coins, book, pass).
    public static let readerFile = """
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

    /// The reader catalog as a value.
    public static var reader: CommerceCatalog {
        // The sample is valid by construction; a failure here is a broken sample, reported by every test using it.
        (try? CatalogFile.parse(readerFile)) ?? CommerceCatalog(app: "invalid-sample")
    }

    /// A catalog of `count` consumables `<prefix>.0` … (long feeds, paging).
    public static func consumables(app: String, count: Int, prefix: String = "item") -> CommerceCatalog {
        CommerceCatalog(app: app, products: (0..<count).map { index in
            ProductDefinition(id: "\(prefix).\(index)", type: .consumable, title: ["en-US": "Item \(index)"],
                              prices: [Price(currency: "USD", amount: 99)],
                              skus: [.appleStore: "\(app).\(prefix)\(index)", .googlePlay: "\(prefix)_\(index)"])
        })
    }
}
