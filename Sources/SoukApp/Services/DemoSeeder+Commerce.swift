import Foundation
import SoukCore
import SoukStore

extension DemoSeeder {
    /// The demo app that sells in-app products (Souk Studio Pro), one product of each type.
    package static let commerceApp = "org.souk.demo.studio"

    /// The demo product catalog: a monthly and a yearly plan opening `pro`, credits (a balance), a
    /// brush pack and a week pass; every store has SKUs so each platform's feed has entries.
    package static var commerceCatalog: CommerceCatalog {
        func skus(_ apple: String, _ google: String, _ amazon: String, _ roku: String) -> [CommerceStore: String] {
            [.appleStore: "\(commerceApp).\(apple)", .googlePlay: google, .amazon: amazon, .roku: roku]
        }
        return CommerceCatalog(
            app: commerceApp, allowSandbox: true,
            entitlements: [EntitlementDefinition(id: "pro", title: "Studio Pro"), EntitlementDefinition(id: "brushes", title: "Brush pack")],
            products: [
                ProductDefinition(id: "studio.monthly", type: .autoRenewable, group: "studio-pro", level: 2, period: ISODuration(months: 1),
                                  title: ["en-US": "Studio Pro Monthly"], description: ["en-US": "Every tool, billed monthly"],
                                  prices: [Price(currency: "USD", amount: 499), Price(currency: "EUR", amount: 499)],
                                  introductoryOffer: IntroductoryOffer(mode: .freeTrial, period: ISODuration(weeks: 1)), familyShareable: true,
                                  skus: skus("monthly", "studio_monthly", "studio.monthly.term", "studio-monthly"),
                                  entitlements: ["pro"], promoted: Promotion(order: 1, visible: true)),
                ProductDefinition(id: "studio.yearly", type: .autoRenewable, group: "studio-pro", level: 1, period: ISODuration(years: 1),
                                  title: ["en-US": "Studio Pro Yearly"], description: ["en-US": "Every tool and every brush, billed yearly"],
                                  prices: [Price(currency: "USD", amount: 3999), Price(currency: "EUR", amount: 3999)], familyShareable: true,
                                  skus: skus("yearly", "studio_yearly", "studio.yearly.term", "studio-yearly"),
                                  entitlements: ["pro", "brushes"], promoted: Promotion(order: 2, visible: true)),
                ProductDefinition(id: "studio.credits.50", type: .consumable, title: ["en-US": "50 export credits"],
                                  prices: [Price(currency: "USD", amount: 199)],
                                  skus: skus("credits50", "studio_credits_50", "studio.credits.50", "studio-credits-50")),
                ProductDefinition(id: "studio.brushes", type: .nonConsumable, title: ["en-US": "Brush pack"],
                                  prices: [Price(currency: "USD", amount: 299)], familyShareable: true,
                                  skus: skus("brushes", "studio_brushes", "studio.brushes", "studio-brushes"), entitlements: ["brushes"]),
                ProductDefinition(id: "studio.pass.week", type: .nonRenewing, duration: ISODuration(weeks: 1), title: ["en-US": "Week pass"],
                                  prices: [Price(currency: "USD", amount: 149)],
                                  skus: skus("weekpass", "studio_week_pass", "studio.pass.week", "studio-week-pass"), entitlements: ["pro"]),
            ])
    }

    /// The marketplace's own catalog: a monthly membership plan (bought through checkout; the
    /// development processor takes no money).
    package static var marketplaceCatalog: CommerceCatalog {
        CommerceCatalog(app: AppPricing.marketplaceApp, allowSandbox: true,
                        entitlements: [EntitlementDefinition(id: "member", title: "Souk Membership")],
                        products: [ProductDefinition(id: "member.monthly", type: .autoRenewable, group: "membership", level: 1,
                                                     period: ISODuration(months: 1), title: ["en-US": "Souk Membership"],
                                                     description: ["en-US": "Every member app, billed monthly"],
                                                     prices: [Price(currency: "USD", amount: 499), Price(currency: "EUR", amount: 499)],
                                                     entitlements: ["member"])])
    }

    /// Applies the demo product catalogs (idempotent: an unchanged catalog is left as it is) and
    /// gives the brush pack hosted content (a zip only its buyers download).
    package func seedCommerceCatalog(workFolder: String) async throws {
        _ = try await runtime.commerceCatalogs.apply(Self.commerceCatalog)
        _ = try await runtime.commerceCatalogs.apply(Self.marketplaceCatalog)
        let package = workFolder + "/content-brushes"
        try FileManager.default.createDirectory(atPath: package + "/Contents", withIntermediateDirectories: true)
        try PropertyListSerialization.data(fromPropertyList: ["ContentVersion": "1.0", "IAPProductIdentifier": "studio.brushes"],
                                           format: .xml, options: 0).write(to: URL(fileURLWithPath: package + "/ContentInfo.plist"))
        try Data("Twelve demo brushes.\n".utf8).write(to: URL(fileURLWithPath: package + "/Contents/brushes.txt"))
        _ = try await HostedContentStore(database: runtime.database, blobs: runtime.blobs, workArea: runtime.config.workDir)
            .importPackage(at: package, app: Self.commerceApp)
    }
}
