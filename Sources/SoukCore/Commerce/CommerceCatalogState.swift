import Foundation

/// One app's catalog as the server holds it at a revision: the products on sale (in order) and the
/// retired ones, whose buyers stay entitled and whose ids are never reused.
public struct CommerceCatalogState: Sendable, Equatable {
    public var catalog: CommerceCatalog
    public var retired: [ProductDefinition]
    /// Grows with every applied change; the lists' `ETag` is built from it.
    public var revision: Int
    /// When the catalog last changed; the lists' `Last-Modified`.
    public var modifiedAt: Date

    public init(catalog: CommerceCatalog, retired: [ProductDefinition] = [], revision: Int, modifiedAt: Date) {
        self.catalog = catalog
        self.retired = retired
        self.revision = revision
        self.modifiedAt = modifiedAt
    }

    public var app: String { catalog.app }

    /// A product on sale.
    public func onSale(_ id: String) -> ProductDefinition? {
        catalog.products.first { $0.id == id }
    }

    /// A product on sale or retired.
    public func product(_ id: String) -> ProductDefinition? {
        onSale(id) ?? retired.first { $0.id == id }
    }

    /// The product (on sale or retired) sold in `store` under `sku`.
    public func product(store: CommerceStore, sku: String) -> ProductDefinition? {
        catalog.products.first { $0.skus[store] == sku } ?? retired.first { $0.skus[store] == sku }
    }
}
