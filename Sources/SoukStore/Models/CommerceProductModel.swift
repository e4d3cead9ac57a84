import FluentKit
import Foundation

/// A product of an app's catalog (`commerce_products`), on sale or retired; never deleted.
/// `definition` is the product as the catalog file states it (`CatalogFile.jsonValue`).
public final class CommerceProductModel: Model, @unchecked Sendable {
    public static let schema = "commerce_products"

    @ID(key: .id) public var id: UUID?
    @Field(key: "app") public var app: String
    @Field(key: "product_id") public var productId: String
    @Field(key: "type") public var type: String
    @Field(key: "definition") public var definition: String
    /// Place in the catalog (the lists' order); for a retired product, its last place.
    @Field(key: "position") public var position: Int
    @Field(key: "created_at") public var createdAt: Date
    @Field(key: "updated_at") public var updatedAt: Date
    @OptionalField(key: "retired_at") public var retiredAt: Date?

    public init() {}
}
