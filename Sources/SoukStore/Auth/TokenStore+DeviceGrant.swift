import FluentKit
import Foundation
import SQLKit
import SoukCore

/// What the device authorization endpoint answers (RFC 8628 §3.2).
public struct DeviceAuthorization: Sendable, Equatable {
    public var deviceCode: String
    /// Without its dash (`UserCode.display` adds it).
    public var userCode: String
    public var expiresIn: Int
    public var interval: Int
}

/// A pending request as `/activate` shows it before the person decides.
public struct PendingDeviceAuthorization: Sendable, Equatable {
    public var clientId: String
    public var expiresAt: Date
}

/// The device authorization grant (RFC 8628): a TV asks for a device code and a user code, a
/// signed-in person approves the user code on `/activate`, the TV polls the token endpoint.
///
/// Both codes are random, stored only as their SHA-256, live `deviceAuthorization` (10 minutes)
/// and work once. The approval binds the request to the approving account with one conditional
/// `UPDATE … WHERE status = 'pending' … RETURNING`, and the redemption claims it the same way
/// (`approved` → `redeemed`), so two concurrent polls get the tokens once.
extension TokenStore {
    public static let deviceAuthorizationSeconds = 600
    public static let devicePollingInterval = 5
    /// How much `slow_down` adds to the interval (RFC 8628 §3.5).
    public static let slowDownStep = 5

    /// Starts a request for `clientId` (the caller checked it is a `tv` client).
    public func startDeviceAuthorization(clientId: String, scope: String = defaultScope) async throws -> DeviceAuthorization {
        let deviceCode = OpaqueToken.generate(.deviceCode)
        for attempt in 1...5 {
            let userCode = UserCode.generate()
            let model = DeviceAuthorizationModel()
            model.deviceCodeHash = OpaqueToken.hash(deviceCode)
            model.userCodeHash = Self.userCodeHash(userCode)
            model.clientId = clientId
            model.scope = scope
            model.statusRaw = DeviceAuthorizationModel.Status.pending.rawValue
            model.intervalSeconds = Self.devicePollingInterval
            model.polls = 0
            model.createdAt = now()
            model.expiresAt = now() + TimeInterval(Self.deviceAuthorizationSeconds)
            do {
                // A user code still stored (even expired) is taken: draw another.
                try await DeviceAuthorizationModel.query(on: database.db).filter(\.$userCodeHash == model.userCodeHash)
                    .filter(\.$expiresAt <= now()).delete()
                try await model.create(on: database.db)
                return DeviceAuthorization(deviceCode: deviceCode, userCode: userCode, expiresIn: Self.deviceAuthorizationSeconds,
                                           interval: Self.devicePollingInterval)
            } catch let error as any DatabaseError where error.isConstraintFailure && attempt < 5 {
                continue
            }
        }
        throw ClientRegistrationProblem("no free user code")  // unreachable in practice: 20^8 codes
    }

    /// The pending, unexpired request a typed user code names; nil for any other code.
    public func pendingDeviceAuthorization(userCode: String) async throws -> PendingDeviceAuthorization? {
        guard let code = UserCode.normalize(userCode),
              let model = try await DeviceAuthorizationModel.query(on: database.db).filter(\.$userCodeHash == Self.userCodeHash(code))
                .filter(\.$statusRaw == DeviceAuthorizationModel.Status.pending.rawValue).filter(\.$expiresAt > now()).first() else {
            return nil
        }
        return PendingDeviceAuthorization(clientId: model.clientId, expiresAt: model.expiresAt)
    }

    /// Approves or denies the pending request `userCode` names, for `accountID`, in one
    /// conditional update. False when no pending, unexpired request has that code (already
    /// decided, expired, or never issued).
    public func decideDeviceAuthorization(userCode: String, accountID: UUID, approve: Bool) async throws -> Bool {
        guard let code = UserCode.normalize(userCode) else { return false }
        let status = approve ? DeviceAuthorizationModel.Status.approved : .denied
        let rows = try await sql.raw("""
            UPDATE device_authorizations SET status = \(bind: status.rawValue), account_id = \(bind: accountID), decided_at = \(bind: now())
            WHERE user_code_hash = \(bind: Self.userCodeHash(code)) AND status = 'pending' AND expires_at > \(bind: now())
            RETURNING id
            """).all()
        return !rows.isEmpty
    }

    /// One poll of the token endpoint with `grant_type=urn:ietf:params:oauth:grant-type:device_code`
    /// (RFC 8628 §3.4, §3.5): the tokens once the request was approved, else the error to answer.
    public func redeemDeviceCode(_ deviceCode: String, clientId: String) async throws -> Result<TokenPair, OAuthError> {
        let invalid = OAuthError(.invalidGrant, "The device_code is invalid or was already used.")
        guard let model = try await DeviceAuthorizationModel.query(on: database.db)
            .filter(\.$deviceCodeHash == OpaqueToken.hash(deviceCode)).first(), let id = model.id else {
            return .failure(invalid)
        }
        guard model.clientId == clientId else { return .failure(OAuthError(.invalidGrant, "The device_code was issued to another client.")) }
        if model.status == .redeemed { return .failure(invalid) }
        if model.expiresAt <= now() {
            return .failure(OAuthError(.expiredToken, "The device_code expired: start again."))
        }
        switch model.status {
        case .denied:
            return .failure(OAuthError(.accessDenied, "The person denied the request."))
        case .approved:
            let claimed = try await sql.raw("""
                UPDATE device_authorizations SET status = 'redeemed'
                WHERE id = \(bind: id) AND status = 'approved' RETURNING account_id
                """).first()
            guard let accountID = try claimed?.decode(column: "account_id", as: UUID.self), try await activeAccount(accountID) else {
                return .failure(invalid)
            }
            return .success(try await issuePair(accountID: accountID, clientId: clientId, scope: model.scope, familyId: UUID(), codeId: nil))
        case .pending, .redeemed, nil:
            return .failure(try await pendingPoll(model, id: id))
        }
    }

    /// `authorization_pending`, or `slow_down` for a poll sooner than the interval after the last
    /// one (which then grows by `slowDownStep`). Each poll is counted by a conditional update on the
    /// poll count, so a poll racing another is one of two at once: `slow_down`.
    private func pendingPoll(_ model: DeviceAuthorizationModel, id: UUID) async throws -> OAuthError {
        let current = now()
        // A millisecond of slack: SQLite and PostgreSQL keep the last poll's time a little rounded.
        let tooSoon = model.lastPolledAt.map { current.timeIntervalSince($0) < TimeInterval(model.intervalSeconds) - 0.001 } ?? false
        let interval = model.intervalSeconds + (tooSoon ? Self.slowDownStep : 0)
        let counted = try await sql.raw("""
            UPDATE device_authorizations SET polls = polls + 1, last_polled_at = \(bind: current), interval_seconds = \(bind: interval)
            WHERE id = \(bind: id) AND polls = \(bind: model.polls) RETURNING id
            """).all()
        if tooSoon || counted.isEmpty {
            return OAuthError(.slowDown, "Polling too fast: wait \(interval) seconds between requests.")
        }
        return OAuthError(.authorizationPending, "The person has not approved the request yet.")
    }

    static func userCodeHash(_ normalized: String) -> String {
        OpaqueToken.hash("user_code:" + normalized)
    }
}
