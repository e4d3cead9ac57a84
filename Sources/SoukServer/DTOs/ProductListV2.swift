import Foundation
import SoukCore

/// `GET /commerce/<app>/products_v2.json`: the products on sale as objects naming Souk's product id
/// with its SKUs, type, entitlements and promotion. Version 2's shape never changes: a new shape is
/// a new file (`products_v3.json`), as StoreKit's “Loading In-App Product Identifiers” advises. Keys that do not apply are absent.
struct ProductListV2: Codable, Equatable {
    struct Product: Codable, Equatable {
        var id: String
        /// `consumable`, `non-consumable`, `auto-renewable` or `non-renewing`.
        var type: String
        /// Store → SKU; only the requested store's when `?store=`/`?platform=` was given.
        var skus: [String: String]
        var entitlements: [String]
        var promoted: Promotion?
        var group: String?
        var level: Int?
        /// ISO 8601 renewal period of an auto-renewable subscription.
        var period: String?
        /// ISO 8601 length of a non-renewing subscription.
        var duration: String?
        var familyShareable: Bool
    }

    struct Entitlement: Codable, Equatable {
        var id: String
        var title: String
    }

    var version: Int
    var app: String
    /// Grows with every catalog change (the `ETag` carries it too).
    var revision: Int
    var entitlements: [Entitlement]
    var products: [Product]

    init(state: CommerceCatalogState, store: CommerceStore?) {
        version = 2
        app = state.app
        revision = state.revision
        entitlements = state.catalog.entitlements.map { Entitlement(id: $0.id, title: $0.title) }
        products = ProductLists.onSale(state, store: store).map { product in
            var skus: [String: String] = [:]
            for (productStore, sku) in product.skus where store == nil || productStore == store { skus[productStore.rawValue] = sku }
            return Product(id: product.id, type: product.type.rawValue, skus: skus, entitlements: product.entitlements,
                           promoted: product.promoted, group: product.group, level: product.level,
                           period: product.period?.description, duration: product.duration?.description,
                           familyShareable: product.familyShareable)
        }
    }
}
