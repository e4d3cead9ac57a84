import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// The OAuth 2.0 authorization server iOS talks to (MarketplaceKit's “Reauthenticating a person”, spec §2): metadata (RFC 8414), the
/// authorization endpoint with its sign-in page (authorization code + PKCE), the token endpoint
/// (authorization code, refresh token, RFC 8693 token exchange) and revocation (RFC 7009).
struct OAuthController<Context: RequestContext> {
    let config: SoukConfig
    let catalog: CatalogStore
    let tokens: TokenStore
    let passwords: PasswordSignIn
    let sessions: WebSessionStore
    let keys: SoukKeys
    let signingKeys: InstallVerificationKeyring
    let pages: Pages
    /// The registered clients and the device authorization grant (`DeviceGrant`).
    let deviceGrant: DeviceGrant
    var clients: ClientRegistry { deviceGrant.clients }
    let idTokens: IDTokenIssuer

    static var csrfCookie: String { "souk_csrf" }
    static var tokenExchange: String { "urn:ietf:params:oauth:grant-type:token-exchange" }
    static var accessTokenType: String { OAuthTokenResponse.accessTokenType }

    var issuer: String { config.publicURL }

    func addRoutes(to router: Router<Context>) {
        router.get(".well-known/oauth-authorization-server", use: metadata)
        router.get(".well-known/jwks.json", use: jwks)
        router.get("oauth/authorize", use: authorize)
        router.post("oauth/authorize", use: signIn)
        router.post("oauth/token", use: token)
        router.post("oauth/revoke", use: revoke)
        addOpenIDRoutes(to: router)
    }

    // MARK: Metadata

    /// RFC 8414 metadata; JSON, no redirects.
    @Sendable func metadata(_ request: Request, context: Context) async throws -> Response {
        Response.json(serverMetadata, cacheControl: "public, max-age=3600")
    }

    /// The RFC 8414 document, which `/.well-known/openid-configuration` extends.
    var serverMetadata: [String: Any] {
        [
            "issuer": issuer,
            "authorization_endpoint": issuer + "/oauth/authorize",
            "token_endpoint": issuer + "/oauth/token",
            "revocation_endpoint": issuer + "/oauth/revoke",
            "jwks_uri": issuer + "/.well-known/jwks.json",
            "response_types_supported": ["code"],
            "device_authorization_endpoint": issuer + DeviceAuthorizationController<SoukRequestContext>.endpointPath,
            "grant_types_supported": ["authorization_code", "refresh_token", Self.tokenExchange, DeviceGrant.grantType],
            "code_challenge_methods_supported": config.allowPlainPKCE ? ["S256", "plain"] : ["S256"],
            "token_endpoint_auth_methods_supported": ["none"],
            "revocation_endpoint_auth_methods_supported": ["none"],
            "scopes_supported": [TokenStoreScope.all],
        ]
    }

    /// The install verification public keys as a JWK set (RFC 7517): the current keys and retired
    /// ones whose tokens may still be alive. Cached briefly, so a rotated key appears within a minute.
    @Sendable func jwks(_ request: Request, context: Context) async throws -> Response {
        Response.json(["keys": try await signingKeys.jwks()], cacheControl: "public, max-age=60")
    }

    // MARK: Authorization endpoint

    /// `GET /oauth/authorize`: validates the request and shows the sign-in page.
    @Sendable func authorize(_ request: Request, context: Context) async throws -> Response {
        // RFC 6749 §4.1.1: the query is application/x-www-form-urlencoded, so `+` is a space
        // (`scope=openid+email`, as form encoders and most OAuth libraries send it).
        guard case .success(let query) = FormBody.parse(request.uri.query ?? "") else {
            return try await refuse(.page("The request is not valid form encoding."))
        }
        let parameters = query.values
        let registered = try await AuthorizationRequest.clientId(parameters).asyncMap { try await clients.find(clientId: $0) } ?? nil
        switch AuthorizationRequest.parse(parameters, allowPlain: config.allowPlainPKCE, registered: registered) {
        case .failure(let refusal):
            return try await refuse(refusal)
        case .success(let authorization):
            if parameters["prompt"] != "login", let session = try await sessions.session(for: request) {
                return try await continuePage(authorization, session: session, parameters: parameters)
            }
            return try await signInPage(authorization, email: authorization.loginHint ?? "", status: .ok)
        }
    }

    /// "Continue as …": one tap for a person already signed in on the website.
    private func continuePage(_ authorization: AuthorizationRequest, session: WebSessionStore.Session,
                              parameters: [String: String]) async throws -> Response {
        var other = URLComponents()
        other.path = "/oauth/authorize"
        other.queryItems = parameters.merging(["prompt": "login"]) { $1 }.sorted { $0.key < $1.key }
            .map { URLQueryItem(name: $0.key, value: $0.value) }
        let values = ContinueValues(
            title: "Sign in", marketplace: try await marketplaceName(), email: session.account.email,
            csrfToken: session.csrfToken, otherAccount: other.string ?? "/oauth/authorize",
            hidden: authorization.formFields.map { HiddenField(name: $0.0, value: $0.1) }, loginHint: authorization.loginHint)
        return pages.response(.continue, values, formTargets: authorization.formTargets)
    }

    /// `POST /oauth/authorize`: checks CSRF, the throttle and the password, then redirects with a code.
    @Sendable func signIn(_ request: Request, context: Context) async throws -> Response {
        let form: FormBody
        switch try await FormBody.read(request, context: context) {
        case .success(let body): form = body
        case .failure(let error): return try await refuse(.page(error.description))
        }
        let authorization: AuthorizationRequest
        let registered = try await AuthorizationRequest.clientId(form.values).asyncMap { try await clients.find(clientId: $0) } ?? nil
        switch AuthorizationRequest.parse(form.values, allowPlain: config.allowPlainPKCE, registered: registered) {
        case .success(let parsed): authorization = parsed
        case .failure(let refusal): return try await refuse(refusal)
        }
        if form["continue"] == "1" {
            guard let session = try await sessions.session(for: request), let field = form["csrf_token"],
                  ConstantTime.equal(session.csrfToken, field) else {
                return try await signInPage(authorization, email: authorization.loginHint ?? "", status: .forbidden,
                                            error: "Your session ended. Please sign in.")
            }
            return try await redirectWithCode(authorization, accountID: session.account.id, authTime: session.signedInAt,
                                              context: context)
        }
        guard let cookie = request.cookies[Self.csrfCookie]?.value, let field = form["csrf_token"],
              ConstantTime.equal(cookie, field) else {
            return try await signInPage(authorization, email: form["email"] ?? "", status: .forbidden,
                                        error: "Your sign-in form expired. Please try again.")
        }
        let email = AccountRecord.normalize(email: form["email"] ?? "")
        let client = ClientAddressReader(trustedProxies: config.trustedProxies).key(for: request, context: context)
        let accountID: UUID
        switch try await passwords.attempt(email: email, password: form.values["password"] ?? "", client: client) {
        case .throttled(let wait):
            return try await signInPage(authorization, email: email, status: .tooManyRequests,
                                        error: "Too many attempts. Try again in \(PasswordSignIn.minutes(wait)).",
                                        extraHeaders: [.retryAfter: String(wait)])
        case .refused:
            return try await signInPage(authorization, email: email, status: .unauthorized,
                                        error: "The email or password is not right.")
        case .signedIn(let account):
            accountID = account.id
        }
        return try await redirectWithCode(authorization, accountID: accountID, context: context)
    }

    /// Issues the one-time code and sends the device back to `app-distribution-oauth:`. `authTime`:
    /// when the person signed in on the website they continued from (nil: they typed a password now).
    private func redirectWithCode(_ authorization: AuthorizationRequest, accountID: UUID, authTime: Date? = nil,
                                  context: Context) async throws -> Response {
        let code = try await tokens.issueCode(accountID: accountID, clientId: authorization.clientId,
                                              redirectURI: authorization.redirectURI,
                                              challenge: authorization.codeChallenge, method: authorization.codeChallengeMethod,
                                              scope: authorization.scope, nonce: authorization.nonce, authTime: authTime)
        context.logger.info("authorization code issued", metadata: ["client_id": "\(authorization.clientId)"])
        return Response(status: .found, headers: [
            .location: AuthorizationRequest.redirect([("code", code), ("state", authorization.state)], to: authorization.redirectURI),
            .cacheControl: "no-store",
        ])
    }

    private func refuse(_ refusal: AuthorizationRequest.Refusal) async throws -> Response {
        switch refusal {
        case .page(let message):
            return pages.response(.error, ErrorPageValues(title: "This sign-in link is not valid", marketplace: try await marketplaceName(),
                                                          message: message), status: .badRequest)
        case .redirect(let error, let state, let redirectURI):
            return Response(status: .found, headers: [
                .location: AuthorizationRequest.redirect([("error", error.code.rawValue),
                                                          ("error_description", error.description), ("state", state)], to: redirectURI),
                .cacheControl: "no-store",
            ])
        }
    }

    private func signInPage(_ authorization: AuthorizationRequest, email: String, status: HTTPResponse.Status,
                            error: String? = nil, extraHeaders: HTTPFields = [:]) async throws -> Response {
        let csrf = OpaqueToken.generate(.csrf)
        let values = SignInValues(
            title: "Sign in", marketplace: try await marketplaceName(), action: "/oauth/authorize", csrfToken: csrf, email: email,
            hidden: authorization.formFields.map { HiddenField(name: $0.0, value: $0.1) }, loginHint: authorization.loginHint,
            error: error, signUp: config.signUpEnabled)
        var headers = extraHeaders
        let cookie = Cookie(name: Self.csrfCookie, value: csrf, maxAge: 1800, path: "/oauth",
                            secure: config.publicURL.hasPrefix("https://"), httpOnly: true, sameSite: .strict)
        headers[.setCookie] = cookie.description
        return pages.response(.signIn, values, status: status, extraHeaders: headers, formTargets: authorization.formTargets)
    }

    private func marketplaceName() async throws -> String {
        try await catalog.marketplaceName(keys: keys)
    }


    // MARK: Token endpoint

    /// The token endpoint's parameters (RFC 6749 §4.1.3 and §6, RFC 7636, RFC 8693): repeated, they
    /// are an `invalid_request`; any other name is ignored, repeated or not.
    static var tokenParameters: Set<String> { [
        "grant_type", "client_id", "client_secret", "code", "redirect_uri", "code_verifier", "refresh_token", "scope",
        "subject_token", "subject_token_type", "requested_token_type", "actor_token", "actor_token_type", "resource", "audience",
        "device_code",
    ] }
    /// The revocation endpoint's (RFC 7009 §2.1).
    static var revocationParameters: Set<String> { ["token", "token_type_hint", "client_id", "client_secret"] }

    /// `POST /oauth/token`: the three grants iOS uses. Errors are RFC 6749 JSON, never cached.
    @Sendable func token(_ request: Request, context: Context) async throws -> Response {
        let form: FormBody
        switch try await FormBody.read(request, context: context, parameters: Self.tokenParameters) {
        case .success(let body): form = body
        case .failure(let error): return Self.oauthError(error)
        }
        guard let clientId = form["client_id"] else {
            return Self.oauthError(OAuthError(.invalidRequest, "client_id is required."))
        }
        guard clientId.count <= 255 else { return Self.oauthError(OAuthError(.invalidRequest, "client_id is too long.")) }
        let result: Result<TokenPair, OAuthError>
        switch form["grant_type"] {
        case "authorization_code":
            // The request's own parameters first: one that could never succeed must not burn the code.
            switch AuthorizationCodeRequest.parse(code: form["code"], clientId: clientId, codeVerifier: form["code_verifier"],
                                                  redirectURI: form["redirect_uri"]) {
            case .failure(let error): return Self.oauthError(error)
            case .success(let redemption): result = try await tokens.redeemCode(redemption)
            }
        case "refresh_token":
            guard let refresh = form["refresh_token"] else { return Self.oauthError(OAuthError(.invalidRequest, "refresh_token is required.")) }
            result = try await tokens.refresh(refresh, clientId: clientId)
        case Self.tokenExchange:
            guard let subject = form["subject_token"] else { return Self.oauthError(OAuthError(.invalidRequest, "subject_token is required.")) }
            guard form["subject_token_type"] == Self.accessTokenType else {
                return Self.oauthError(OAuthError(.invalidRequest, "subject_token_type must be \(Self.accessTokenType)."))
            }
            if let requested = form["requested_token_type"], requested != Self.accessTokenType {
                return Self.oauthError(OAuthError(.invalidRequest, "Only access tokens can be issued."))
            }
            result = try await tokens.exchange(subjectToken: subject, clientId: clientId)
        case DeviceGrant.grantType:
            result = try await deviceGrant.redeem(deviceCode: form["device_code"], clientId: clientId)
        case nil:
            return Self.oauthError(OAuthError(.invalidRequest, "grant_type is required."))
        default:
            return Self.oauthError(OAuthError(.unsupportedGrantType, "Supported: authorization_code, refresh_token, token exchange, device_code."))
        }
        switch result {
        case .failure(let error):
            return Self.oauthError(error)
        case .success(let pair):
            return OAuthTokenResponse(pair: pair, idToken: try await idTokens.idToken(for: pair, clientId: clientId)).response
        }
    }

    // MARK: Revocation

    /// `POST /oauth/revoke` (RFC 7009): 200 whether or not the token was known.
    @Sendable func revoke(_ request: Request, context: Context) async throws -> Response {
        switch try await FormBody.read(request, context: context, parameters: Self.revocationParameters) {
        case .failure(let error):
            return Self.oauthError(error)
        case .success(let form):
            guard let token = form["token"] else { return Self.oauthError(OAuthError(.invalidRequest, "token is required.")) }
            try await tokens.revoke(token: token)
            return Response(status: .ok, headers: [.cacheControl: "no-store", .contentLength: "0"])
        }
    }

    // MARK: JSON

    static func oauthError(_ error: OAuthError) -> Response {
        OAuthErrorResponse(error).response(status: error.status)
    }
}
