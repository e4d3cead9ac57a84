import FluentKit
import Foundation

/// An app that sells in-app products (`commerce_apps`): keyed by its bundle id / package name,
/// with the revision and time of its catalog's last change (the product lists' validators).
public final class CommerceAppModel: Model, @unchecked Sendable {
    public static let schema = "commerce_apps"

    @ID(key: .id) public var id: UUID?
    @Field(key: "app") public var app: String
    @Field(key: "allow_sandbox") public var allowSandbox: Bool
    /// The catalog file's `stores` object as compact JSON (references to secrets only); nil: none set.
    @OptionalField(key: "stores") public var stores: String?
    @Field(key: "revision") public var revision: Int64
    /// The developer organisation that owns the catalog (`DeveloperDirectory`); nil: the marketplace's own.
    @OptionalField(key: "developer_id") public var developerID: String?
    @Field(key: "modified_at") public var modifiedAt: Date
    @Field(key: "created_at") public var createdAt: Date

    public init() {}
}
