import FluentKit
import Foundation

/// An entitlement (access level) of an app's catalog (`commerce_entitlements`), in file order.
public final class CommerceEntitlementModel: Model, @unchecked Sendable {
    public static let schema = "commerce_entitlements"

    @ID(key: .id) public var id: UUID?
    @Field(key: "app") public var app: String
    @Field(key: "entitlement_id") public var entitlementId: String
    @Field(key: "title") public var title: String
    @Field(key: "position") public var position: Int

    public init() {}
}
