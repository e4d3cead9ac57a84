import Foundation
import SoukCore

/// The catalog of docs/commerce.md's example file, shared by the commerce rule tests.
enum ReaderCatalog {
    static let app = "com.example.reader"
    static let epoch = Date(timeIntervalSince1970: 1_790_000_000)

    static let monthly = ProductDefinition(
        id: "reader.monthly", type: .autoRenewable, group: "plans", level: 2, period: ISODuration(months: 1),
        title: ["en-US": "Monthly"], skus: [.appleStore: "com.example.reader.monthly", .googlePlay: "monthly"], entitlements: ["premium"])
    static let yearly = ProductDefinition(
        id: "reader.yearly", type: .autoRenewable, group: "plans", level: 1, period: ISODuration(years: 1),
        title: ["en-US": "Yearly"], skus: [.appleStore: "com.example.reader.yearly"], entitlements: ["premium", "offline"])
    static let coins = ProductDefinition(
        id: "reader.coins.100", type: .consumable, title: ["en-US": "100 coins"], skus: [.appleStore: "com.example.reader.coins100"])
    static let book = ProductDefinition(
        id: "reader.book.1", type: .nonConsumable, title: ["en-US": "Book 1"], skus: [.appleStore: "com.example.reader.book1"],
        entitlements: ["book1"])
    static let pass = ProductDefinition(
        id: "reader.pass.30d", type: .nonRenewing, duration: ISODuration(days: 30), title: ["en-US": "30 days"],
        skus: [.appleStore: "com.example.reader.pass30"], entitlements: ["premium"])
    static let offlineAddOn = ProductDefinition(
        id: "reader.offline", type: .nonConsumable, title: ["en-US": "Offline"], skus: [.appleStore: "com.example.reader.offline"],
        entitlements: ["offline"])
    /// Retired: off sale; its buyers stay entitled.
    static let legacy = ProductDefinition(
        id: "reader.legacy", type: .nonConsumable, title: ["en-US": "Legacy"], skus: [.appleStore: "com.example.reader.legacy"],
        entitlements: ["legacy"])
    /// Retired and granting what the monthly plan grants: never "covered", only owned.
    static let oldPlan = ProductDefinition(
        id: "reader.old-plan", type: .nonConsumable, title: ["en-US": "Old plan"], skus: [.appleStore: "com.example.reader.oldplan"],
        entitlements: ["premium"])

    static func state(allowSandbox: Bool = false) -> CommerceCatalogState {
        CommerceCatalogState(
            catalog: CommerceCatalog(
                app: app, allowSandbox: allowSandbox,
                entitlements: [EntitlementDefinition(id: "premium", title: "Premium"), EntitlementDefinition(id: "offline", title: "Offline"),
                               EntitlementDefinition(id: "book1", title: "Book 1"), EntitlementDefinition(id: "legacy", title: "Legacy")],
                products: [monthly, yearly, coins, book, pass, offlineAddOn]),
            retired: [legacy, oldPlan], revision: 3, modifiedAt: epoch)
    }

    static func day(_ n: Double) -> Date { epoch.addingTimeInterval(n * 86_400) }

    static func purchase(_ product: ProductDefinition, _ environment: CommerceEnvironment = .production, bought: Double = 0,
                         expires: Double? = nil, revoked: Double? = nil, quantity: Int = 1, id: UUID = UUID()) -> PurchaseRecord {
        PurchaseRecord(paymentId: id, productId: product.id, type: product.type, environment: environment, purchaseDate: day(bought),
                       expiresDate: expires.map(day), revokedAt: revoked.map(day), quantity: quantity)
    }
}
