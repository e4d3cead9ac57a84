import Foundation

/// The product lists an app reads (StoreKit's “Loading In-App Product Identifiers”, Zapp's payment-provider API), decided from the catalog held now.
///
/// `products_v1.json` is what the app hands to StoreKit: the SKU in one store (Apple by default) of
/// each product on sale that has one, in catalog order. `products_v2.json` and the `products` feed
/// name Souk's product ids with their SKUs. Retired products appear in none of them.
public enum ProductLists {
    /// The items of `products_v1.json`: SKUs in `store`, in catalog order.
    public static func v1(_ state: CommerceCatalogState, store: CommerceStore = .appleStore) -> [String] {
        state.catalog.products.compactMap { $0.skus[store] }
    }

    /// The products of `products_v2.json` and of the feed: every product on sale, or only those sold
    /// in `store` when one is named, in catalog order.
    public static func onSale(_ state: CommerceCatalogState, store: CommerceStore?) -> [ProductDefinition] {
        guard let store else { return state.catalog.products }
        return state.catalog.products.filter { $0.skus[store] != nil }
    }

    /// Seed 003's two entry types: subscriptions (auto-renewable and non-renewing) and
    /// consumables (consumable and non-consumable, i.e. everything bought outright).
    public static func feedType(_ type: ProductType) -> String {
        type.isSubscription ? "subscription" : "consumable"
    }

    /// A strong entity tag for one list of the catalog at its revision. The modification time is
    /// part of it so that a database started again from scratch never repeats an old tag.
    public static func entityTag(_ state: CommerceCatalogState, list: String) -> String {
        let millis = Int64((state.modifiedAt.timeIntervalSince1970 * 1000).rounded())
        return "\"\(list)-\(state.revision)-\(String(millis, radix: 36))\""
    }

    /// Whole seconds since 1970 of the catalog's last change (`Last-Modified`).
    public static func lastModified(_ state: CommerceCatalogState) -> Int64 {
        Int64(state.modifiedAt.timeIntervalSince1970.rounded(.down))
    }

    /// Where page `page` (from 1) of `size` items starts; where the product overflows, `Int.max / 2`:
    /// past any list, with room left for a limit added to it (`offset..<offset + limit`). So a page
    /// number from a query (`?page=6165903546708930560`) reads an empty page instead of trapping.
    public static func offset(page: Int, size: Int) -> Int {
        let (offset, overflow) = (max(page, 1) - 1).multipliedReportingOverflow(by: size)
        return overflow || offset > Int.max / 2 ? Int.max / 2 : offset
    }

    /// One page of a feed of `count` entries: the range of entries to show and whether more follow.
    public static func page(count: Int, offset: Int, limit: Int) -> (range: Range<Int>, hasMore: Bool) {
        let start = min(max(offset, 0), count)
        let end = start + min(max(limit, 1), count - start)
        return (start..<end, end < count)
    }
}
