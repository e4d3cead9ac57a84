import Foundation
import Hummingbird
import SoukCore
import SoukStore

/// The license endpoints of `/.well-known/marketplace-kit` (spec §3): dynamic licenses, renewals
/// and the resolution page. Malformed or undecryptable requests are 400s, never 500s.
struct LicenseController<Context: RequestContext> {
    let service: LicenseService
    let bearer: BearerAuthenticator
    let catalog: CatalogStore
    let keys: SoukKeys
    let pages: Pages

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
    func answering<T>(_ context: Context, _ work: () async throws -> T) async throws -> T {
        do {
            return try await work()
        } catch let error as LicenseCrypto.Undecryptable {
            throw Problem(.badRequest, error.description)
        } catch LicenseIssuerError.unreadable(let message) {
            throw Problem(.badRequest, message)
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
            let apps = try await service.runtime.catalogIndex.apps(parsed.apps.map(\.appleItemId))
            if apps.values.contains(where: { $0.availability == .available && $0.access == .account }) {
                throw BearerChallenge(status: .unauthorized, realm: bearer.realm)
            }
        }
        let issued = try await answering(context) { try await service.create(parsed, accountID: identity?.accountID) }
        if !issued.refusals.isEmpty {
            context.logger.info("licenses refused", metadata: ["refusals": "\(issued.refusals.map { "\($0.key): \($0.value.rawValue)" })"])
        }
        return .json(["license": Data(issued.license).base64EncodedString(), "unlicensedApps": issued.unlicensed.map(String.init)],
                     cacheControl: "no-store")
    }

    func renew(_ request: Request, _ context: Context) async throws -> Response {
        let parsed: LicenseRenewalBody
        do {
            parsed = try LicenseRenewalBody.parse(try await body(request))
        } catch let error as LicenseEnvelopeError {
            throw Problem(.badRequest, error.description)
        }
        let renewed = try await answering(context) { try await service.renew(parsed) }
        return .json(["license": Data(renewed.license).base64EncodedString(), "ineligibleLicenses": renewed.ineligible.map(String.init)],
                     cacheControl: "no-store")
    }

    // MARK: Resolution page

    /// `GET /license/resolve?account=&appleItemID=&appleVersionID=` (spec §3.3): why the license
    /// lapsed, in plain words, and what fixes it.
    func resolve(_ request: Request, _ context: Context) async throws -> Response {
        let query = request.uri.queryParameters
        let marketplace = try await catalog.marketplaceName(keys: keys)
        func page(_ title: String, _ explanation: String, action: (label: String, href: String)?, status: HTTPResponse.Status = .ok) -> Response {
            var values: [String: Any] = ["title": title, "marketplace": marketplace, "explanation": explanation]
            if let action { values["action"] = ["label": action.label, "href": action.href] }
            return pages.response("license-resolve", values, status: status)
        }
        guard let itemText = query["appleItemID"] ?? query["appleItemId"], let appleItemId = AppleID.parse(String(itemText)) else {
            return page("This link is incomplete", "The link does not say which app it is about. Open the app again and choose Resolve.",
                        action: ("Browse apps", "/apps"), status: .badRequest)
        }
        let email = query["account"].map(String.init)?.trimmingCharacters(in: .whitespaces) ?? ""
        let signIn = (label: "Sign in to \(marketplace)", href: "/signin")
        switch try await service.lapse(appleItemId: appleItemId, email: email.isEmpty ? nil : email) {
        case .appWithdrawn:
            return page("This app is no longer available",
                        "It was withdrawn from \(marketplace), so its license cannot be renewed. The app cannot be opened any more; you can delete it.",
                        action: ("Browse other apps", "/apps"))
        case .accountNeeded(let app):
            return page("Sign in to keep using \(app)", "\(app) needs a \(marketplace) account. Sign in, then open the app again.", action: signIn)
        case .renewOnline(let app):
            return page("\(app) needs a fresh license",
                        "Connect to the internet and open \(app) again; your device renews its license by itself.", action: nil)
        case .unknownAccount(let app):
            return page("Sign in to keep using \(app)", "There is no \(marketplace) account for \(email). Sign in with the account you installed the app with.",
                        action: signIn)
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
        case .signInToRenew(let app):
            return page("Sign in to renew \(app)",
                        "Your device could not renew the license for \(app). Sign in to \(marketplace) on this device, then open the app again.",
                        action: signIn)
        }
    }
}
