import Foundation
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// The license endpoints of `/.well-known/marketplace-kit` (spec §3): dynamic licenses, renewals
/// and the resolution page. Malformed or undecryptable requests are 400s, never 500s; a database
/// that fails is a 503 (`ProblemMiddleware`), never a refusal.
struct LicenseController<Context: RequestContext> {
    let service: LicenseService
    /// The catalog in memory, for the sign-in rule before the envelope is opened.
    let index: CatalogIndex
    let bearer: BearerAuthenticator
    let catalog: CatalogStore
    let keys: SoukKeys
    let pages: Pages
    let sessions: WebSessionStore

    static var maxBody: Int { 1 << 20 }

    func addRoutes(to router: Router<Context>) {
        router.post("marketplace-kit/v1/license") { request, context in try await create(request, context) }
        router.post("marketplace-kit/v1/license/renew") { request, context in try await renew(request, context) }
        router.get("license/resolve") { request, context in try await resolve(request, context) }
    }

    func body(_ request: Request) async throws -> [UInt8] {
        Array(buffer: try await request.collectBody(upTo: Self.maxBody))
    }

    /// Runs `work`, turning what the device got wrong into 400s and a failing issuer into a 502.
    /// Whatever fails from the RSA step on — key, padding, length, content — answers the one
    /// `UnreadableLicenseRequest`, so the answer says nothing about the plaintext (no padding
    /// oracle); the reason goes to the log only.
    func answering<T>(_ context: Context, _ work: () async throws -> T) async throws -> T {
        do {
            return try await work()
        } catch let error as LicenseCrypto.Undecryptable {
            context.logger.notice("license request refused", metadata: ["reason": "\(error.description)"])
            throw UnreadableLicenseRequest()
        } catch LicenseIssuerError.unreadable(let message) {
            context.logger.notice("license request refused", metadata: ["reason": "\(message)"])
            throw UnreadableLicenseRequest()
        } catch LicenseIssuerError.unavailable(let message) {
            context.logger.error("license issuer failed", metadata: ["error": "\(message)"])
            throw Problem(.badGateway, "Licenses cannot be issued right now. Try again later.")
        }
    }

    func create(_ request: Request, _ context: Context) async throws -> Response {
        let parsed: LicenseRequestBody
        do {
            parsed = try LicenseRequestBody.parse(try await body(request))
        } catch let error as LicenseEnvelopeError {
            throw Problem(.badRequest, error.description)
        }
        // The same rules as restore: public apps need no token; an available account app does.
        let identity = try await bearer.optionalBearer(request)
        if identity == nil {
            let apps = try await index.apps(parsed.apps.map(\.appleItemId))
            if apps.values.contains(where: \.requiresAccount) {
                throw BearerChallenge(status: .unauthorized, realm: bearer.realm)
            }
        }
        let issued = try await answering(context) { try await service.create(parsed, accountID: identity?.accountID, clientId: identity?.clientId) }
        if !issued.refusals.isEmpty {
            context.logger.info("licenses refused", metadata: ["refusals": "\(issued.refusals.map { "\($0.key): \($0.value.rawValue)" }.sorted())"])
        }
        // Every app refused for payment: the whole answer is the 402 the marketplace app acts on.
        let requested = parsed.apps.map(\.appleItemId)
        if !requested.isEmpty, requested.allSatisfy({ issued.refusals[$0]?.payment != nil }),
           let first = requested.first, let verdict = issued.refusals[first]?.payment,
           let app = try await index.apps([first])[first] {
            throw Problem(HTTPResponse.Status(code: 402, reasonPhrase: "Payment Required"), PaymentRule.description(verdict, pricing: app.pricing), type: "urn:souk:problem:\(verdict.rawValue)",
                          purchaseURL: service.payments.purchaseURL(app))
        }
        return LicenseResponse(license: Data(issued.license).base64EncodedString(), unlicensedApps: issued.unlicensed.map(String.init)).response
    }

    func renew(_ request: Request, _ context: Context) async throws -> Response {
        let parsed: LicenseRenewalBody
        do {
            parsed = try LicenseRenewalBody.parse(try await body(request))
        } catch let error as LicenseEnvelopeError {
            throw Problem(.badRequest, error.description)
        }
        let renewed = try await answering(context) { try await service.renew(parsed) }
        return LicenseRenewalResponse(license: Data(renewed.license).base64EncodedString(),
                                      ineligibleLicenses: renewed.ineligible.map(String.init)).response
    }

    // MARK: Resolution page

    /// `GET /license/resolve?account=&appleItemID=&appleVersionID=` (spec §3.3): why the license
    /// lapsed, in plain words, and what fixes it. Only a website session of the account the link
    /// names (or, without `account`, the signed-in account) sees anything about an account; anyone
    /// else gets the same page whether the account exists or not, and a sign-in link back here.
    func resolve(_ request: Request, _ context: Context) async throws -> Response {
        let query = request.uri.queryParameters
        let marketplace = try await catalog.marketplaceName(keys: keys)
        func page(_ title: String, _ explanation: String, action: (label: String, href: String)?, status: HTTPResponse.Status = .ok) -> Response {
            pages.response(.licenseResolve, LicenseResolveValues(title: title, marketplace: marketplace, explanation: explanation,
                                                                 action: action.map { .init(label: $0.label, href: $0.href) }), status: status)
        }
        guard let itemText = query["appleItemID"] ?? query["appleItemId"], let appleItemId = AppleID.parse(String(itemText)) else {
            return page("This link is incomplete", "The link does not say which app it is about. Open the app again and choose Resolve.",
                        action: ("Browse apps", "/apps"), status: .badRequest)
        }
        let email = query["account"].map(String.init)?.trimmingCharacters(in: .whitespaces) ?? ""
        let session = try await sessions.session(for: request)
        let viewer: LicenseService.Viewer
        if let session, email.isEmpty || AccountRecord.normalize(email: email) == session.account.email {
            viewer = .owner(session.account)
        } else {
            viewer = .stranger(namedAccount: !email.isEmpty)
        }
        let signIn = (label: "Sign in to \(marketplace)", href: SignInReturn.signInURL(returningTo: request.uri.path, query: request.uri.query))
        switch try await service.lapse(appleItemId: appleItemId, viewer: viewer) {
        case .appWithdrawn:
            return page("This app is no longer available",
                        "It was withdrawn from \(marketplace), so its license cannot be renewed. The app cannot be opened any more; you can delete it.",
                        action: ("Browse other apps", "/apps"))
        case .signInToSee(let app) where session != nil:
            return page("Sign in with the account you installed \(app) with",
                        "This browser is signed in to \(marketplace) with another account. Sign out in your account, then sign in with the account you installed \(app) with to see why its license lapsed.",
                        action: ("Open your account", "/account"))
        case .signInToSee(let app):
            return page("Sign in to keep using \(app)",
                        "Sign in to \(marketplace) with the account you installed \(app) with to see why its license lapsed and what fixes it. Then open the app again.",
                        action: signIn)
        case .renewOnline(let app):
            return page("\(app) needs a fresh license",
                        "Connect to the internet and open \(app) again; your device renews its license by itself.", action: nil)
        case .accountDisabled(let account):
            return page("Your account is disabled", "The account \(account) was disabled, so its licenses are not renewed. Contact \(marketplace) support.",
                        action: nil)
        case .revoked(let app, let reason):
            return page("Your license for \(app) was withdrawn",
                        "\(marketplace) revoked it (\(reason ?? "no reason given")). If you think this is wrong, contact support.",
                        action: ("Open your account", "/account"))
        case .deviceLimit(let app, let account, let used, let limit):
            return page("You have reached your device limit",
                        "\(account) already uses \(used) of \(limit) devices. Release a device in your account, then open \(app) again.",
                        action: ("Manage your devices", "/account"))
        case .paymentRequired(let app, let verdict, let detail, let url):
            return page(verdict == .subscriptionExpired ? "Your membership has lapsed" : "\(app) is not paid for",
                        detail + " Then open \(app) again.", action: (verdict == .subscriptionExpired ? "Renew your membership" : "Buy \(app)", url))
        case .signInToRenew(let app):
            return page("Sign in to renew \(app)",
                        "Your device could not renew the license for \(app). Sign in to \(marketplace) on this device, then open the app again.",
                        action: ("Open your account", "/account"))
        }
    }
}

/// The one answer to a license envelope that cannot be read after the RSA step: the same status
/// and the same body bytes whatever went wrong (no request id, no detail), so that a device — or
/// an attacker — cannot tell bad padding from bad content.
struct UnreadableLicenseRequest: HTTPResponseError {
    var status: HTTPResponse.Status { .badRequest }

    static let body = #"{"detail":"The license request cannot be read.","status":400,"title":"Bad Request","type":"about:blank"}"#

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers: HTTPFields = [.contentType: "application/problem+json", .cacheControl: "no-store"]
        headers[.contentLength] = String(Self.body.utf8.count)
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: Self.body)))
    }
}
