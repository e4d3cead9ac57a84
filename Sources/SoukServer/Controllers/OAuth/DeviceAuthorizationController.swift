import Foundation
import HTTPTypes
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// The device authorization grant for TVs (RFC 8628, docs/oauth.md "TVs"): the device
/// authorization endpoint a registered `tv` client asks for codes, and `/activate`, where a
/// signed-in person types the user code, sees which client asks, and approves or denies it.
/// The token endpoint's half is `DeviceGrant`.
struct DeviceAuthorizationController<Context: WebSessionRequestContext> {
    let config: SoukConfig
    let grant: DeviceGrant
    let sessions: WebSessionStore
    let throttle: LoginThrottle
    let pages: Pages
    let marketplaceName: @Sendable () async throws -> String

    static var endpointPath: String { "/oauth/device_authorization" }
    static var parameters: Set<String> { ["client_id", "scope"] }

    func addRoutes(to router: Router<Context>) {
        router.post("oauth/device_authorization", use: deviceAuthorization)
        // Signed out: to sign-in first, then back here (a GET with the code the TV's link carries).
        let signedIn = router.group("activate").add(middleware: WebSessionMiddleware(sessions: sessions, returnHere: true))
        signedIn.get(use: activatePage)
        signedIn.post(use: activate)
    }

    /// `POST /oauth/device_authorization`: a device code, a user code and where to type it.
    @Sendable func deviceAuthorization(_ request: Request, context: Context) async throws -> Response {
        let form: FormBody
        switch try await FormBody.read(request, context: context, parameters: Self.parameters) {
        case .success(let body): form = body
        case .failure(let error): return OAuthController<Context>.oauthError(error)
        }
        guard let clientId = form["client_id"], clientId.count <= 255 else {
            return OAuthController<Context>.oauthError(OAuthError(.invalidRequest, "client_id is required."))
        }
        if let scope = form["scope"], scope != TokenStore.defaultScope {
            return OAuthController<Context>.oauthError(OAuthError(.invalidScope, "The only scope is \(TokenStore.defaultScope)."))
        }
        if case .failure(let error) = try await grant.tvClient(clientId) { return OAuthController<Context>.oauthError(error) }
        let started = try await grant.tokens.startDeviceAuthorization(clientId: clientId)
        context.logger.info("device authorization started", metadata: ["client_id": "\(clientId)"])
        return DeviceAuthorizationResponse(started, publicURL: config.publicURL).response
    }

    /// `GET /activate[?user_code=…]`: the code form (signed out: to sign-in first, then back here).
    @Sendable func activatePage(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireWebSession()
        let typed = request.uri.queryParameters["user_code"].map(String.init) ?? ""
        return try await page(.activate, session: session) { $0.userCode = String(typed.prefix(32)) }
    }

    /// `POST /activate`: `decision` absent → look the code up and show who asks; `approve` or
    /// `deny` → decide. Every wrong code counts against the throttle.
    @Sendable func activate(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireWebSession()
        let form = try await sessions.checkedForm(request, session: session, context: context)
        let typed = String((form["user_code"] ?? "").prefix(32))
        let accountID = session.account.id
        let client = ClientAddressReader(trustedProxies: config.trustedProxies).key(for: request, context: context)
        let addressRule = SignInThrottleRule.userCodeAddress(client)
        let accountRule = SignInThrottleRule.userCodeAccount(accountID.uuidString.lowercased())
        if case .refused(let wait) = try await throttle.claim(addressRule) {
            return try await tooMany(wait, session: session, typed: typed)
        }
        if case .refused(let wait) = try await throttle.claim(accountRule) {
            try await throttle.release(addressRule)
            return try await tooMany(wait, session: session, typed: typed)
        }
        guard let pending = try await grant.tokens.pendingDeviceAuthorization(userCode: typed),
              let asking = try await grant.clients.find(clientId: pending.clientId) else {
            return try await page(.activate, session: session, status: .badRequest) {
                $0.userCode = typed
                $0.error = "That code is not right, or it has expired. Check the code on your TV's screen."
            }
        }
        try await throttle.reset(key: accountRule.key)
        try await throttle.release(addressRule)
        let code = UserCode.display(UserCode.normalize(typed) ?? typed)
        switch form["decision"] {
        case "approve", "deny":
            let approve = form["decision"] == "approve"
            guard try await grant.tokens.decideDeviceAuthorization(userCode: typed, accountID: accountID, approve: approve) else {
                return try await page(.activate, session: session, status: .badRequest) {
                    $0.userCode = typed
                    $0.error = "That code was already used, or it has expired. Check the code on your TV's screen."
                }
            }
            context.logger.info("device authorization decided", metadata: ["client_id": "\(asking.clientId)", "approved": "\(approve)"])
            return try await page(.activateDone, session: session) {
                $0.client = asking.name
                $0.approved = approve
            }
        default:
            return try await page(.activateConfirm, session: session) {
                $0.client = asking.name
                $0.userCode = code
            }
        }
    }

    private func tooMany(_ wait: Int, session: WebSessionStore.Session, typed: String) async throws -> Response {
        try await page(.activate, session: session, status: .tooManyRequests, extraHeaders: [.retryAfter: String(wait)]) {
            $0.userCode = typed
            $0.error = "Too many wrong codes. Try again in \(PasswordSignIn.minutes(wait))."
        }
    }

    /// One of the `/activate` pages for the signed-in person, filled in by `fill`.
    private func page(_ template: PageTemplate, session: WebSessionStore.Session, status: HTTPResponse.Status = .ok,
                      extraHeaders: HTTPFields = [:], fill: (inout ActivatePageValues) -> Void) async throws -> Response {
        var page = ActivatePageValues(email: session.account.email, csrfToken: session.csrfToken)
        fill(&page)
        let layout = PublicLayout(title: template == .activateDone ? "Done" : "Connect a TV", marketplace: try await marketplaceName())
        return pages.response(template, PageContext(layout: layout, page: page), status: status, extraHeaders: extraHeaders)
    }
}
