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
    let licenses: LicenseStore
    let config: SoukConfig
    let keys: SoukKeys
    let pages: Pages

    static var maxBody: Int { 1 << 20 }

    func addRoutes(to router: Router<Context>) {
        router.post("marketplace-kit/v1/license") { request, context in try await create(request, context) }
        router.post("marketplace-kit/v1/license/renew") { request, context in try await renew(request, context) }
        router.get("license/resolve") { request, context in try await resolve(request, context) }
    }

    func body(_ request: Request) async throws -> [UInt8] {
        do {
            return Array(buffer: try await request.body.collect(upTo: Self.maxBody))
        } catch {
            throw Problem(.contentTooLarge, "The request body is larger than \(Self.maxBody) bytes.")
        }
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
        guard let app = try? await catalog.app(appleItemId: appleItemId), app.availability == .available else {
            return page("This app is no longer available",
                        "It was withdrawn from \(marketplace), so its license cannot be renewed. The app cannot be opened any more; you can delete it.",
                        action: ("Browse other apps", "/apps"))
        }
        let email = query["account"].map(String.init)?.trimmingCharacters(in: .whitespaces) ?? ""
        let signIn = (label: "Sign in to \(marketplace)", href: "/signin")
        guard !email.isEmpty else {
            if app.access == .account {
                return page("Sign in to keep using \(app.name)", "\(app.name) needs a \(marketplace) account. Sign in, then open the app again.",
                            action: signIn)
            }
            return page("\(app.name) needs a fresh license",
                        "Connect to the internet and open \(app.name) again; your device renews its license by itself.", action: nil)
        }
        guard let account = try await catalog.account(email: email) else {
            return page("Sign in to keep using \(app.name)", "There is no \(marketplace) account for \(email). Sign in with the account you installed the app with.",
                        action: signIn)
        }
        guard !account.disabled else {
            return page("Your account is disabled", "The account \(account.email) was disabled, so its licenses are not renewed. Contact \(marketplace) support.",
                        action: nil)
        }
        let accountID = try account.requireID()
        let latest = try await licenses.list(accountID: accountID, appleItemId: appleItemId, limit: 1).first
        if let latest, latest.revokedAt != nil {
            return page("Your license for \(app.name) was withdrawn",
                        "\(marketplace) revoked it (\(latest.revokedReason ?? "no reason given")). If you think this is wrong, contact support.",
                        action: ("Open your account", "/account"))
        }
        let limit = account.deviceLimit ?? config.licensing.deviceLimit
        let devices = try await licenses.liveDevices(accountID: accountID)
        if limit > 0, devices.count >= limit, latest?.isLive(at: Date()) != true {
            return page("You have reached your device limit",
                        "\(account.email) already uses \(devices.count) of \(limit) devices. Release a device in your account, then open \(app.name) again.",
                        action: ("Manage your devices", "/account"))
        }
        return page("Sign in to renew \(app.name)",
                    "Your device could not renew the license for \(app.name). Sign in to \(marketplace) on this device, then open the app again.",
                    action: signIn)
    }
}
