import Foundation

/// What applying a catalog file changes in the catalog held now: products added, changed and
/// retired, entitlements added, changed and removed, `allowSandbox`, and the order of the lists.
/// Empty means "no change" (applying the same file twice).
public struct CatalogDiff: Sendable, Equatable {
    /// A product whose definition changes, with the file keys that differ (`prices`, `promoted`…).
    public struct ProductChange: Sendable, Equatable {
        public var id: String
        public var fields: [String]

        public init(id: String, fields: [String]) {
            self.id = id
            self.fields = fields
        }
    }

    /// True when the app has no catalog yet.
    public var createsApp = false
    public var addedProducts: [String] = []
    public var changedProducts: [ProductChange] = []
    /// On sale now, missing from the file: off sale, out of every list; buyers keep their entitlements.
    public var retiredProducts: [String] = []
    public var addedEntitlements: [String] = []
    public var changedEntitlements: [String] = []
    public var removedEntitlements: [String] = []
    public var allowSandbox: (from: Bool, to: Bool)?
    /// The products or entitlements that stay are listed in another order.
    public var reordered = false
    /// Stores whose settings the file changes (added, changed or removed).
    public var changedStores: [CommerceStore] = []
    /// Every value the change changes, old and new, in the order of `lines` (what the audit log keeps).
    public var changes: [FieldChange] = []

    public init() {}

    public var isEmpty: Bool {
        !createsApp && addedProducts.isEmpty && changedProducts.isEmpty && retiredProducts.isEmpty && addedEntitlements.isEmpty
            && changedEntitlements.isEmpty && removedEntitlements.isEmpty && allowSandbox == nil && !reordered && changedStores.isEmpty
    }

    public static func == (a: CatalogDiff, b: CatalogDiff) -> Bool {
        a.createsApp == b.createsApp && a.addedProducts == b.addedProducts && a.changedProducts == b.changedProducts
            && a.retiredProducts == b.retiredProducts && a.addedEntitlements == b.addedEntitlements
            && a.changedEntitlements == b.changedEntitlements && a.removedEntitlements == b.removedEntitlements
            && a.allowSandbox?.from == b.allowSandbox?.from && a.allowSandbox?.to == b.allowSandbox?.to && a.reordered == b.reordered
            && a.changedStores == b.changedStores && a.changes == b.changes
    }

    /// One line per change (`+ product …`, `~ product …: prices`, `- product … (retired)`), or `no change`.
    public var lines: [String] {
        guard !isEmpty else { return ["no change"] }
        var lines: [String] = []
        if createsApp { lines.append("+ app (new catalog)") }
        if let allowSandbox { lines.append("~ allowSandbox: \(allowSandbox.from) → \(allowSandbox.to)") }
        lines += addedEntitlements.map { "+ entitlement \($0)" }
        lines += changedEntitlements.map { "~ entitlement \($0): title" }
        lines += removedEntitlements.map { "- entitlement \($0)" }
        lines += addedProducts.map { "+ product \($0)" }
        lines += changedProducts.map { "~ product \($0.id): \($0.fields.joined(separator: ", "))" }
        lines += retiredProducts.map { "- product \($0) (retired: off sale, its buyers keep their entitlements)" }
        if reordered { lines.append("~ order of products or entitlements") }
        lines += changedStores.map { "~ stores.\($0.rawValue)" }
        return lines
    }

    /// The changes from `current` (nil: the app has no catalog yet) to `next`, refusing what can
    /// never be applied over `current`: a retired product's id, or a SKU a retired product had in
    /// that store, named by their path in the file. `next` should already be valid (`CatalogFile.validate`).
    public static func between(_ current: CommerceCatalogState?, _ next: CommerceCatalog) throws(CatalogFileError) -> CatalogDiff {
        var diff = CatalogDiff()
        let retired = current?.retired ?? []
        for (index, product) in next.products.enumerated() {
            if retired.contains(where: { $0.id == product.id }) {
                throw CatalogFileError(path: "products[\(index)].id", message: "\"\(product.id)\" was retired; product ids are never reused (choose a new id)")
            }
            for (store, sku) in product.skus.sorted(by: { $0.key < $1.key }) {
                if let old = retired.first(where: { $0.skus[store] == sku }) {
                    throw CatalogFileError(path: "products[\(index)].skus.\(store.rawValue)",
                                           message: "\"\(sku)\" is the \(store.rawValue) SKU of the retired product \"\(old.id)\"; SKUs are never reused")
                }
            }
        }
        guard let current else {
            diff.createsApp = true
            diff.addedEntitlements = next.entitlements.map(\.id)
            diff.addedProducts = next.products.map(\.id)
            if next.allowSandbox { diff.allowSandbox = (false, true) }
            diff.changedStores = storeChanges(nil, next.stores)
            diff.changes = values(of: diff, from: nil, to: next)
            return diff
        }
        let old = current.catalog
        if old.allowSandbox != next.allowSandbox { diff.allowSandbox = (old.allowSandbox, next.allowSandbox) }
        if let stores = next.stores { diff.changedStores = storeChanges(old.stores, stores) }
        let oldEntitlements = Dictionary(old.entitlements.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let newEntitlementIds = Set(next.entitlements.map(\.id))
        for entitlement in next.entitlements {
            if let before = oldEntitlements[entitlement.id] {
                if before != entitlement { diff.changedEntitlements.append(entitlement.id) }
            } else {
                diff.addedEntitlements.append(entitlement.id)
            }
        }
        diff.removedEntitlements = old.entitlements.map(\.id).filter { !newEntitlementIds.contains($0) }
        let oldProducts = Dictionary(old.products.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let newProductIds = Set(next.products.map(\.id))
        for product in next.products {
            if let before = oldProducts[product.id] {
                let fields = changedFields(before, product)
                if !fields.isEmpty { diff.changedProducts.append(ProductChange(id: product.id, fields: fields)) }
            } else {
                diff.addedProducts.append(product.id)
            }
        }
        diff.retiredProducts = old.products.map(\.id).filter { !newProductIds.contains($0) }
        let keptProducts = old.products.map(\.id).filter(newProductIds.contains)
        let keptEntitlements = old.entitlements.map(\.id).filter(newEntitlementIds.contains)
        diff.reordered = keptProducts != next.products.map(\.id).filter { oldProducts[$0] != nil }
            || keptEntitlements != next.entitlements.map(\.id).filter { oldEntitlements[$0] != nil }
        diff.changes = values(of: diff, from: old, to: next)
        return diff
    }

    /// The stores whose settings differ (a file without `stores` changes none).
    static func storeChanges(_ old: CommerceStoreSettings?, _ new: CommerceStoreSettings?) -> [CommerceStore] {
        guard let new else { return [] }
        let old = old ?? CommerceStoreSettings()
        return CommerceStore.allCases.filter { store in
            switch store {
            case .appleStore: old.apple != new.apple
            case .googlePlay: old.googlePlay != new.googlePlay
            case .amazon: old.amazon != new.amazon
            case .roku: old.roku != new.roku
            }
        }
    }

    /// The file keys whose values differ between two definitions of one product.
    static func changedFields(_ a: ProductDefinition, _ b: ProductDefinition) -> [String] {
        var fields: [String] = []
        if a.type != b.type { fields.append("type") }
        if a.group != b.group { fields.append("group") }
        if a.level != b.level { fields.append("level") }
        if a.period != b.period { fields.append("period") }
        if a.duration != b.duration { fields.append("duration") }
        if a.title != b.title { fields.append("title") }
        if a.description != b.description { fields.append("description") }
        if a.prices != b.prices { fields.append("prices") }
        if a.introductoryOffer != b.introductoryOffer { fields.append("introductoryOffer") }
        if a.familyShareable != b.familyShareable { fields.append("familyShareable") }
        if a.skus != b.skus { fields.append("skus") }
        if a.entitlements != b.entitlements { fields.append("entitlements") }
        if a.promoted != b.promoted { fields.append("promoted") }
        if a.offers != b.offers { fields.append("offers") }
        return fields
    }
}
