import FluentKit
import Foundation

/// A registered OAuth client (`oauth_clients`); its redirect URIs are a JSON array of strings.
public final class OAuthClientModel: Model, @unchecked Sendable {
    public static let schema = "oauth_clients"

    @ID(key: .id) public var id: UUID?
    @Field(key: "client_id") public var clientId: String
    @Field(key: "name") public var name: String
    @Field(key: "kind") public var kind: String
    @Field(key: "redirect_uris") public var redirectURIs: String
    @OptionalField(key: "app") public var app: String?
    @Field(key: "created_at") public var createdAt: Date

    public init() {}
}
