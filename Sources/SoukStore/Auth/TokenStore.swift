import Crypto
import FluentKit
import Foundation
import SQLKit
import SoukCore

/// A token response: what the token endpoint returns.
public struct TokenPair: Sendable, Equatable, Codable {
    public var accessToken: String
    public var refreshToken: String
    public var expiresIn: Int
    public var scope: String
    /// Who the tokens are for, when they signed in, and the authorization request's `nonce`: what
    /// an OpenID Connect ID token says (`IDTokenClaims`). Not part of the OAuth answer itself.
    public var accountID: UUID? = nil
    public var authTime: Date? = nil
    public var nonce: String? = nil
}

/// The authorization server's memory: codes, tokens, install-link grants. Every secret is stored
/// as its SHA-256; every single-use step is claimed with one conditional `UPDATE … RETURNING`, so
/// two racing requests can never both win.
public struct TokenStore: Sendable {
    let database: SoukDatabase
    public let lifetimes: TokenLifetimes
    let now: @Sendable () -> Date

    public static let defaultScope = "all"

    public init(database: SoukDatabase, lifetimes: TokenLifetimes = TokenLifetimes(), now: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.lifetimes = lifetimes
        self.now = now
    }

    var sql: any SQLDatabase { database.sql }

    // MARK: Authorization codes

    /// Issues a one-time code bound to the account, client, redirect URI and PKCE challenge, with
    /// OpenID Connect's `nonce` and the time the person authenticated (`authTime`, nil: now).
    public func issueCode(accountID: UUID, clientId: String, redirectURI: String, challenge: String,
                          method: PKCE.Method, scope: String = defaultScope, nonce: String? = nil,
                          authTime: Date? = nil) async throws -> String {
        let code = OpaqueToken.generate(.authorizationCode)
        let model = OAuthCodeModel()
        model.codeHash = OpaqueToken.hash(code)
        model.$account.id = accountID
        model.clientId = clientId
        model.redirectURI = redirectURI
        model.codeChallenge = challenge
        model.codeChallengeMethod = method.rawValue
        model.scope = scope
        model.nonce = nonce
        model.authTime = authTime ?? now()
        model.expiresAt = now() + lifetimes.authorizationCode.timeInterval
        try await model.create(on: database.db)
        return code
    }

    /// Redeems a code (RFC 6749 §4.1.3 + RFC 7636 §4.6) for a request whose own parameters were
    /// already checked: claims the code in one conditional `UPDATE … RETURNING`, then lets
    /// `AuthorizationCodeRule` decide from the stored values. A code presented a second time fails
    /// and revokes every token issued from it (RFC 6749 §4.1.2).
    public func redeemCode(_ request: AuthorizationCodeRequest) async throws -> Result<TokenPair, OAuthError> {
        let invalid = OAuthError(.invalidGrant, "The authorization code is invalid, expired or already used.")
        let hash = OpaqueToken.hash(request.code)
        let row = try await sql.raw("""
            UPDATE oauth_codes SET used_at = \(bind: now()) WHERE code_hash = \(bind: hash) AND used_at IS NULL
            RETURNING id, account_id, client_id, redirect_uri, code_challenge, code_challenge_method, scope, expires_at, nonce, auth_time
            """).first()
        guard let row else {
            if let replayed = try await OAuthCodeModel.query(on: database.db).filter(\.$codeHash == hash).first(), let codeID = replayed.id {
                try await revokeTokens(issuedFromCode: codeID)
            }
            return .failure(invalid)
        }
        let issued = IssuedAuthorizationCode(
            clientId: try row.decode(column: "client_id", as: String.self),
            redirectURI: try row.decode(column: "redirect_uri", as: String.self),
            codeChallenge: try row.decode(column: "code_challenge", as: String.self),
            codeChallengeMethod: try row.decode(column: "code_challenge_method", as: String.self),
            expiresAt: try row.decode(column: "expires_at", as: Date.self))
        if let refusal = AuthorizationCodeRule.refusal(for: request, code: issued, now: now()) { return .failure(refusal) }
        let accountID = try row.decode(column: "account_id", as: UUID.self)
        guard try await activeAccount(accountID) else { return .failure(invalid) }
        var pair = try await issuePair(accountID: accountID, clientId: request.clientId, scope: try row.decode(column: "scope", as: String.self),
                                       familyId: UUID(), codeId: try row.decode(column: "id", as: UUID.self),
                                       authTime: try row.decode(column: "auth_time", as: Date?.self))
        pair.nonce = try row.decode(column: "nonce", as: String?.self)
        return .success(pair)
    }

    // MARK: Refresh tokens

    /// Rotates a refresh token (RFC 6749 §6, RFC 9700 §4.14.2). Presenting the just-rotated token
    /// again within the grace window returns the same new pair (iOS retries); any later reuse
    /// revokes the whole family.
    public func refresh(_ refreshToken: String, clientId: String) async throws -> Result<TokenPair, OAuthError> {
        let invalid = OAuthError(.invalidGrant, "The refresh token is invalid, expired or revoked.")
        guard let model = try await token(refreshToken, kind: .refresh), let tokenID = model.id,
              model.revokedAt == nil, model.expiresAt > now() else {
            return .failure(invalid)
        }
        guard model.clientId == clientId else { return .failure(OAuthError(.invalidGrant, "The refresh token was issued to another client.")) }
        guard try await activeAccount(model.$account.id) else { return .failure(invalid) }
        if model.rotatedAt == nil {
            let pair = try await issuePair(accountID: model.$account.id, clientId: clientId, scope: model.scope,
                                           familyId: model.familyId, codeId: model.codeId, authTime: model.authTime)
            let sealed = try Self.seal(pair, with: refreshToken)
            let claimed = try await sql.raw("""
                UPDATE oauth_tokens SET rotated_at = \(bind: now()), rotation_sealed = \(bind: sealed)
                WHERE id = \(bind: tokenID) AND rotated_at IS NULL RETURNING id
                """).all()
            if !claimed.isEmpty { return .success(pair) }
            // A concurrent retry rotated it first: drop our pair and answer like a retry.
            try await revoke(hashes: [OpaqueToken.hash(pair.accessToken), OpaqueToken.hash(pair.refreshToken)])
        }
        guard let current = try await OAuthTokenModel.find(tokenID, on: database.db), let rotatedAt = current.rotatedAt,
              let sealed = current.rotationSealed else {
            return .failure(invalid)
        }
        if now().timeIntervalSince(rotatedAt) <= lifetimes.refreshRetryGrace.timeInterval,
           let pair = try? Self.open(sealed, with: refreshToken),
           try await isLive(OpaqueToken.hash(pair.refreshToken)) {
            return .success(pair)
        }
        try await revokeFamily(current.familyId)
        return .failure(OAuthError(.invalidGrant, "The refresh token was already used; its sessions have been signed out."))
    }

    // MARK: Install-link grants (RFC 8693 subject tokens)

    /// A single-use, short-lived grant naming `accountID`, for a `marketplace-kit://` install link.
    /// With `appleItemId`, the exchange records the install of that app on the exchanging device.
    public func issueInstallGrant(accountID: UUID, appleItemId: UInt64? = nil) async throws -> String {
        let grant = OpaqueToken.generate(.installGrant)
        let model = InstallGrantModel()
        model.grantHash = OpaqueToken.hash(grant)
        model.$account.id = accountID
        model.appleItemIdColumn = appleItemId.map(AppleIDColumn.store)
        model.expiresAt = now() + lifetimes.installGrant.timeInterval
        try await model.create(on: database.db)
        return grant
    }

    /// Token exchange: redeems an install grant for tokens bound to its account and `clientId`.
    public func exchange(subjectToken: String, clientId: String) async throws -> Result<TokenPair, OAuthError> {
        let claimed = try await sql.raw("""
            UPDATE install_grants SET used_at = \(bind: now())
            WHERE grant_hash = \(bind: OpaqueToken.hash(subjectToken)) AND used_at IS NULL AND expires_at > \(bind: now())
            RETURNING account_id, apple_item_id
            """).first()
        guard let accountID = try claimed?.decode(column: "account_id", as: UUID.self),
              try await activeAccount(accountID) else {
            return .failure(OAuthError(.invalidGrant, "The subject_token is invalid, expired or already used."))
        }
        // No install is recorded here: the exchange comes before the license and the restore of the
        // same install, which must still say `download` (InstallLedger, spec §0).
        return .success(try await issuePair(accountID: accountID, clientId: clientId, scope: Self.defaultScope,
                                            familyId: UUID(), codeId: nil))
    }

    // MARK: Using and revoking tokens

    /// Why a presented bearer token is refused.
    public enum BearerFailure: Error, Sendable, Equatable {
        case unknown, expired, revoked, accountDisabled
    }

    /// The account and client behind a bearer token, or why not.
    public struct Bearer: Sendable, Equatable {
        public var accountID: UUID
        public var clientId: String
        public var scope: String
        /// The commerce app a registered client's tokens are bound to (`ClientRegistry`); nil: any.
        public var app: String? = nil
    }

    /// Checks an access token. Last use is written at most once a minute per token.
    public func authenticate(accessToken: String) async throws -> Result<Bearer, BearerFailure> {
        guard let model = try await token(accessToken, kind: .access), let id = model.id else { return .failure(.unknown) }
        if model.revokedAt != nil { return .failure(.revoked) }
        if model.expiresAt <= now() { return .failure(.expired) }
        guard try await activeAccount(model.$account.id) else { return .failure(.accountDisabled) }
        if model.lastUsedAt.map({ now().timeIntervalSince($0) > 60 }) ?? true {
            try await sql.raw("UPDATE oauth_tokens SET last_used_at = \(bind: now()) WHERE id = \(bind: id)").run()
        }
        return .success(Bearer(accountID: model.$account.id, clientId: model.clientId, scope: model.scope))
    }

    /// `authenticate(accessToken:)` in one indexed query (token joined with its account), with the
    /// account's email and sandbox flag: what the commerce hot paths need on a cache miss.
    public func authenticateAccount(accessToken: String) async throws -> Result<(bearer: Bearer, email: String, sandbox: Bool, expiresAt: Date), BearerFailure> {
        guard let row = try await sql.raw("""
            SELECT t.id, t.account_id, t.client_id, t.scope, t.expires_at, t.revoked_at, t.last_used_at,
                   a.email, a.sandbox, a.disabled, c.app AS bound_app
            FROM oauth_tokens t JOIN accounts a ON a.id = t.account_id LEFT JOIN oauth_clients c ON c.client_id = t.client_id
            WHERE t.token_hash = \(bind: OpaqueToken.hash(accessToken)) AND t.kind = \(bind: OAuthTokenModel.Kind.access.rawValue)
            """).first() else { return .failure(.unknown) }
        if try row.decode(column: "revoked_at", as: Date?.self) != nil { return .failure(.revoked) }
        let expiresAt = try row.decode(column: "expires_at", as: Date.self)
        if expiresAt <= now() { return .failure(.expired) }
        if try row.decode(column: "disabled", as: Bool.self) { return .failure(.accountDisabled) }
        if try row.decode(column: "last_used_at", as: Date?.self).map({ now().timeIntervalSince($0) > 60 }) ?? true {
            try await sql.raw("UPDATE oauth_tokens SET last_used_at = \(bind: now()) WHERE id = \(bind: try row.decode(column: "id", as: UUID.self))").run()
        }
        let bearer = Bearer(accountID: try row.decode(column: "account_id", as: UUID.self),
                            clientId: try row.decode(column: "client_id", as: String.self), scope: try row.decode(column: "scope", as: String.self),
                            app: try row.decode(column: "bound_app", as: String?.self))
        return .success((bearer, try row.decode(column: "email", as: String.self), try row.decode(column: "sandbox", as: Bool.self), expiresAt))
    }

    /// The counter database triggers move when a token is revoked or deleted, or an account is
    /// disabled, re-addressed, made sandbox or deleted (`CreateAuthRevision`).
    public func authRevision() async throws -> Int64 {
        try await sql.raw("SELECT value FROM auth_revision WHERE id = 1").first()?.decode(column: "value", as: Int64.self) ?? 0
    }

    /// RFC 7009: revoking a refresh token signs out its whole family; an access token only itself.
    /// Unknown tokens are ignored (the endpoint answers 200 either way).
    public func revoke(token: String) async throws {
        guard let model = try await OAuthTokenModel.query(on: database.db).filter(\.$tokenHash == OpaqueToken.hash(token)).first() else {
            return
        }
        if model.kind == .refresh {
            try await revokeFamily(model.familyId)
        } else {
            try await revoke(hashes: [model.tokenHash])
        }
    }

    /// Signs out one client (device) of an account, or all of them.
    public func revokeAll(accountID: UUID, clientId: String? = nil) async throws {
        var query = OAuthTokenModel.query(on: database.db).filter(\.$account.$id == accountID).filter(\.$revokedAt == nil)
        if let clientId { query = query.filter(\.$clientId == clientId) }
        try await query.set(\.$revokedAt, to: now()).update()
    }

    // MARK: Internals

    func issuePair(accountID: UUID, clientId: String, scope: String, familyId: UUID, codeId: UUID?,
                   authTime: Date? = nil) async throws -> TokenPair {
        let access = OpaqueToken.generate(.accessToken)
        let refresh = OpaqueToken.generate(.refreshToken)
        let issued = now()
        try await database.transaction { db in
            let accessModel = OAuthTokenModel(tokenHash: OpaqueToken.hash(access), kind: .access, accountID: accountID, clientId: clientId,
                                              scope: scope, familyId: familyId, codeId: codeId,
                                              expiresAt: issued + lifetimes.accessToken.timeInterval)
            let refreshModel = OAuthTokenModel(tokenHash: OpaqueToken.hash(refresh), kind: .refresh, accountID: accountID, clientId: clientId,
                                               scope: scope, familyId: familyId, codeId: codeId,
                                               expiresAt: issued + lifetimes.refreshToken.timeInterval)
            for model in [accessModel, refreshModel] {
                model.authTime = authTime
                try await model.create(on: db)
            }
        }
        return TokenPair(accessToken: access, refreshToken: refresh, expiresIn: Int(lifetimes.accessToken.timeInterval), scope: scope,
                         accountID: accountID, authTime: authTime)
    }

    private func token(_ value: String, kind: OAuthTokenModel.Kind) async throws -> OAuthTokenModel? {
        try await OAuthTokenModel.query(on: database.db)
            .filter(\.$tokenHash == OpaqueToken.hash(value)).filter(\.$kindRaw == kind.rawValue).first()
    }

    private func isLive(_ hash: String) async throws -> Bool {
        try await OAuthTokenModel.query(on: database.db).filter(\.$tokenHash == hash).filter(\.$revokedAt == nil).first() != nil
    }

    func activeAccount(_ id: UUID) async throws -> Bool {
        try await AccountModel.find(id, on: database.db).map { !$0.disabled } ?? false
    }

    private func revoke(hashes: [String]) async throws {
        try await OAuthTokenModel.query(on: database.db).filter(\.$tokenHash ~~ hashes).filter(\.$revokedAt == nil)
            .set(\.$revokedAt, to: now()).update()
    }

    private func revokeFamily(_ familyId: UUID) async throws {
        try await OAuthTokenModel.query(on: database.db).filter(\.$familyId == familyId).filter(\.$revokedAt == nil)
            .set(\.$revokedAt, to: now()).update()
    }

    private func revokeTokens(issuedFromCode codeID: UUID) async throws {
        try await OAuthTokenModel.query(on: database.db).filter(\.$codeId == codeID).filter(\.$revokedAt == nil)
            .set(\.$revokedAt, to: now()).update()
    }

    /// Seals the new pair so that only a holder of the old refresh token can read it back.
    static func seal(_ pair: TokenPair, with refreshToken: String) throws -> String {
        let sealed = try AES.GCM.seal(try JSONEncoder().encode(pair), using: retryKey(refreshToken))
        return sealed.combined!.base64EncodedString()
    }

    static func open(_ text: String, with refreshToken: String) throws -> TokenPair {
        guard let data = Data(base64Encoded: text) else { throw CocoaError(.coderReadCorrupt) }
        let box = try AES.GCM.SealedBox(combined: data)
        return try JSONDecoder().decode(TokenPair.self, from: try AES.GCM.open(box, using: retryKey(refreshToken)))
    }

    private static func retryKey(_ refreshToken: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: Data(refreshToken.utf8)),
                               info: Data("souk refresh retry".utf8), outputByteCount: 32)
    }
}

extension TokenStore {
    /// A device signed in to an account: one per `client_id` with live tokens.
    public struct Device: Sendable, Equatable {
        public var clientId: String
        public var signedInAt: Date
        public var lastUsedAt: Date?
    }

    /// The account's devices, most recently used first.
    public func devices(accountID: UUID) async throws -> [Device] {
        let tokens = try await OAuthTokenModel.query(on: database.db)
            .filter(\.$account.$id == accountID).filter(\.$revokedAt == nil).filter(\.$expiresAt > now()).all()
        var byClient: [String: Device] = [:]
        for token in tokens {
            let created = token.createdAt ?? now()
            var device = byClient[token.clientId] ?? Device(clientId: token.clientId, signedInAt: created, lastUsedAt: nil)
            device.signedInAt = min(device.signedInAt, created)
            if let used = token.lastUsedAt { device.lastUsedAt = max(device.lastUsedAt ?? used, used) }
            byClient[token.clientId] = device
        }
        return byClient.values.sorted { ($0.lastUsedAt ?? $0.signedInAt) > ($1.lastUsedAt ?? $1.signedInAt) }
    }
}
