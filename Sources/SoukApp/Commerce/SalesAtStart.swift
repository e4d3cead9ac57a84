import Foundation
import SoukCore
import SoukStore

/// What `souk serve` says at start about the marketplace's own sales: with the development
/// processor, that no money moves; with none, a warning when something has a price, since it
/// cannot be bought (docs/selling.md).
public struct SalesAtStart: Sendable, Equatable {
    /// The banner's line, for the development processor.
    public var bannerLine: String?
    /// A warning for the log and the banner: priced apps or plans that no one can buy.
    public var warning: String?

    public static func check(_ runtime: SoukRuntime) async throws -> SalesAtStart {
        switch runtime.config.commerce.paymentProcessor {
        case "development":
            return SalesAtStart(bannerLine: "  payments     development processor: no money moves, every order is paid at once (paymentProcessor)")
        case "none":
            let apps = try await CatalogStore(database: runtime.database).pricedAppCount()
            let plans = try await runtime.commerceCatalogs.state(app: AppPricing.marketplaceApp)?.catalog.products
                .filter { $0.type == .autoRenewable && !$0.prices.isEmpty }.count ?? 0
            guard apps + plans > 0 else { return SalesAtStart() }
            return SalesAtStart(warning: "paymentProcessor is none: \(apps) priced app\(apps == 1 ? "" : "s") and \(plans) membership "
                                + "plan\(plans == 1 ? "" : "s") cannot be bought (checkout answers 503); set paymentProcessor to stripe "
                                + "(development only where no money should move)")
        default:
            return SalesAtStart()
        }
    }
}
