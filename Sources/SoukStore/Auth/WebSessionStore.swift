import FluentKit
import Foundation
import SoukCore

/// Web sign-in sessions, stored in the database so every Souk process shares them.
public struct WebSessionStore: Sendable {
    let database: SoukDatabase
    public let lifetime: TimeInterval
    let now: @Sendable () -> Date

    public init(database: SoukDatabase, lifetime: TimeInterval = 7 * 86_400, now: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.lifetime = lifetime
        self.now = now
    }

    /// A signed-in session: the account and the CSRF token for its forms.
    public struct Session: Sendable {
        public var account: AccountRecord
        public var csrfToken: String
        /// When the person signed in on the website (OpenID Connect's `auth_time` when they continue).
        public var signedInAt: Date? = nil
    }

    /// Starts a session; returns the cookie value.
    public func create(accountID: UUID) async throws -> String {
        let token = OpaqueToken.generate(.session)
        let model = WebSessionModel()
        model.tokenHash = OpaqueToken.hash(token)
        model.$account.id = accountID
        model.csrfToken = OpaqueToken.generate(.csrf)
        model.expiresAt = now() + lifetime
        try await model.create(on: database.db)
        return token
    }

    /// The live session behind a cookie value, if any (expired sessions and disabled accounts are none).
    public func find(_ token: String) async throws -> Session? {
        guard let model = try await WebSessionModel.query(on: database.db).filter(\.$tokenHash == OpaqueToken.hash(token))
            .with(\.$account).first(), model.expiresAt > now(), !model.account.disabled else {
            return nil
        }
        return Session(account: try AccountRecord(model.account), csrfToken: model.csrfToken, signedInAt: model.createdAt)
    }

    /// Ends a session.
    public func delete(_ token: String) async throws {
        try await WebSessionModel.query(on: database.db).filter(\.$tokenHash == OpaqueToken.hash(token)).delete()
    }

    /// Ends every session of an account.
    public func deleteAll(accountID: UUID) async throws {
        try await WebSessionModel.query(on: database.db).filter(\.$account.$id == accountID).delete()
    }

    /// Ends every session of an account but the one whose token is `keeping` (a password change
    /// signs the other browsers out).
    public func deleteOthers(accountID: UUID, keeping token: String) async throws {
        try await WebSessionModel.query(on: database.db).filter(\.$account.$id == accountID)
            .filter(\.$tokenHash != OpaqueToken.hash(token)).delete()
    }
}
