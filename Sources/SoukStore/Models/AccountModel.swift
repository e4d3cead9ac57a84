import FluentKit
import Foundation

/// A person's account (`accounts`). Emails are stored lower-cased and are unique.
public final class AccountModel: Model, @unchecked Sendable {
    public static let schema = "accounts"

    @ID(key: .id) public var id: UUID?
    @Field(key: "email") public var email: String
    @Field(key: "password_hash") public var passwordHash: String
    @Field(key: "disabled") public var disabled: Bool
    /// At most this many devices with live licenses (nil: the server's default limit, if any).
    @OptionalField(key: "device_limit") public var deviceLimit: Int?
    /// A sandbox account sees and presents only purchases made in the stores' sandboxes.
    @Field(key: "sandbox") public var sandbox: Bool
    @Timestamp(key: "created_at", on: .create) public var createdAt: Date?

    public init() {}

    public init(email: String, passwordHash: String) {
        self.email = AccountModel.normalize(email: email)
        self.passwordHash = passwordHash
        self.disabled = false
        self.sandbox = false
    }

    /// The one spelling of an email address Souk stores and looks up.
    public static func normalize(email: String) -> String {
        email.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }

    public static func find(email: String, on db: any Database) async throws -> AccountModel? {
        try await AccountModel.query(on: db).filter(\.$email == normalize(email: email)).first()
    }
}
