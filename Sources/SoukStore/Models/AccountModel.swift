import FluentKit
import Foundation
import SoukCore

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
    /// `customer`, `support` or `operator` (`AccountRole`); only the last two open the console.
    @Field(key: "role") public var roleName: String
    /// The TOTP secret, sealed (`TOTPSecretBox`); set once enrolment starts, nil after a reset.
    @OptionalField(key: "totp_secret") public var totpSecret: String?
    /// Whether signing in to the console asks for a TOTP code after the password.
    @Field(key: "totp_enabled") public var totpEnabled: Bool
    /// The last TOTP time step accepted: a code is taken once.
    @OptionalField(key: "totp_last_step") public var totpLastStep: Int64?

    public init() {}

    public init(email: String, passwordHash: String) {
        self.email = AccountModel.normalize(email: email)
        self.passwordHash = passwordHash
        self.disabled = false
        self.sandbox = false
        self.roleName = AccountRole.customer.rawValue
        self.totpEnabled = false
    }

    /// The account's role; an unknown stored value counts as a customer's.
    public var role: AccountRole {
        get { AccountRole(rawValue: roleName) ?? .customer }
        set { roleName = newValue.rawValue }
    }

    /// The one spelling of an email address Souk stores and looks up.
    public static func normalize(email: String) -> String {
        email.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }

    public static func find(email: String, on db: any Database) async throws -> AccountModel? {
        try await AccountModel.query(on: db).filter(\.$email == normalize(email: email)).first()
    }
}
