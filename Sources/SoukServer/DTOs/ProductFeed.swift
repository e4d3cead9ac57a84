import Foundation
import SoukCore

/// `GET /commerce/<app>/products` (Zapp's payment-provider API): a Pipes2 feed, one entry per product on sale, with the
/// product's SKU in each store under `extensions.external_sku`.
struct ProductFeed: Codable, Equatable {
    struct TypeValue: Codable, Equatable {
        var value: String
    }

    struct Extensions: Codable, Equatable {
        /// Store → SKU (`apple_store`, `google_play`, `amazon`, `roku`); one key when the request named a platform or store.
        var externalSku: [String: String]
        /// Souk's exact type (`auto-renewable`, `non-renewing`, `consumable`, `non-consumable`); `type.value` has the seed's two.
        var productType: String
        /// The entitlement ids the product grants (the storefront filters by an item's required entitlements).
        var entitlements: [String]

        enum CodingKeys: String, CodingKey {
            case externalSku = "external_sku"
            case productType = "product_type"
            case entitlements
        }
    }

    struct Entry: Codable, Equatable {
        /// Souk's product id: what `POST transactions` names as `data.productId`.
        var id: String
        var title: String?
        var summary: String?
        /// `subscription` (auto-renewable, non-renewing) or `consumable` (consumable, non-consumable).
        var type: TypeValue
        var extensions: Extensions
    }

    var id: String
    var title: String
    /// The payment provider's name (`SOUK_COMMERCE_PROVIDER_NAME`).
    var type: TypeValue
    var entry: [Entry]
    /// The next page's absolute URL, present while more entries follow (20 per page).
    var next: String?

    init(app: String, provider: String, products: ArraySlice<ProductDefinition>, store: CommerceStore?, next: String?) {
        id = "\(app)-products"
        title = "Products"
        type = TypeValue(value: provider)
        entry = products.map { product in
            var skus: [String: String] = [:]
            for (productStore, sku) in product.skus where store == nil || productStore == store { skus[productStore.rawValue] = sku }
            return Entry(id: product.id, title: Self.text(product.title), summary: Self.text(product.description),
                         type: TypeValue(value: ProductLists.feedType(product.type)),
                         extensions: Extensions(externalSku: skus, productType: product.type.rawValue, entitlements: product.entitlements))
        }
        self.next = next
    }

    /// The `en-US` text, else `en`, else the first locale's.
    static func text(_ texts: [String: String]) -> String? {
        texts["en-US"] ?? texts["en"] ?? texts.sorted { $0.key < $1.key }.first?.value
    }
}
