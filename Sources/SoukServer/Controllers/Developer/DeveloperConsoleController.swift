import Foundation
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// The developer console (`/developer…`, docs/developers.md, "Developer console") for members of a developer
/// organisation: their organisation's apps (text, media, package upload, versions) and in-app
/// catalogs (edit, review, apply), its API keys (owners), and their own two-factor settings. Every
/// route passes `DeveloperConsoleGate`; handlers decode the form, call one operation of
/// `Developers/` as the session's actor, and render. Another organisation's ids answer 404.
struct DeveloperConsoleController<Context: RequestContext> {
    let services: DeveloperServices
    let sessions: WebSessionStore
    let pages: Pages
    let totp: TOTPStore
    let marketplaceName: @Sendable () async throws -> String
    let requiresTwoFactor: Bool
    /// Where the sealing key of store credentials is.
    let keysDir: String

    init(runtime: SoukRuntime, sessions: WebSessionStore, pages: Pages, now: @escaping @Sendable () -> Date) {
        services = DeveloperServices(runtime: runtime, now: now)
        self.sessions = sessions
        self.pages = pages
        totp = TOTPStore(database: runtime.database, keysDir: runtime.config.keysDir, now: now)
        let catalog = runtime.catalog, keys = runtime.keys
        marketplaceName = { try await catalog.marketplaceName(keys: keys) }
        requiresTwoFactor = runtime.config.consoleRequiresTwoFactor
        keysDir = runtime.config.keysDir
    }

    var gate: DeveloperConsoleGate {
        DeveloperConsoleGate(sessions: sessions, totp: totp, directory: services.directory, pages: pages,
                             requiresTwoFactor: requiresTwoFactor, marketplaceName: marketplaceName)
    }

    func addRoutes(to router: Router<Context>) {
        router.get("developer", use: home)
        router.get("developer/security", use: security)
        router.post("developer/security/confirm", use: confirmTOTP)
        addAppRoutes(to: router)
        addCatalogRoutes(to: router)
        addKeyRoutes(to: router)
        addCommerceRoutes(to: router)
        addCredentialRoutes(to: router)
        addWebhookRoutes(to: router)
        addStatementRoutes(to: router)
        addSalesRoutes(to: router)
    }

    /// `/developer`: the organisation's apps and in-app catalogs.
    @Sendable func home(_ request: Request, context: Context) async throws -> Response {
        let session = try await gate.session(request)
        var apps: [[String: String]] = []
        for id in try await services.directory.appleItemIds(of: session.member.developerID) {
            let app: AppModel
            do {
                app = try await services.catalog.app(appleItemId: id)
            } catch CatalogError.notFound {
                continue  // deleted since the list was read
            }
            apps.append(["id": String(id), "name": app.name, "bundleId": app.bundleId, "availability": app.availability.summary])
        }
        var catalogs: [[String: String]] = []
        for app in try await services.directory.catalogs(of: session.member.developerID) {
            guard let state = try await services.commerceCatalogs.store.state(app: app) else { continue }
            catalogs.append(["app": app, "href": "/developer/catalog/\(AdminController<Context>.pathComponent(app))",
                             "revision": String(state.revision), "onSale": String(state.catalog.products.count)])
        }
        return try await render("developer-home", session: session, title: session.developer.name, ["apps": apps, "catalogs": catalogs])
    }

    /// A console page: the layout's values, the console's navigation and the session's CSRF token.
    func render(_ template: String, session: DeveloperSession, title: String, _ values: [String: Any],
                status: HTTPResponse.Status = .ok) async throws -> Response {
        var all = values
        // `{{#has-x}}` opens a table only when the list `x` has rows.
        for (key, value) in values {
            if let list = value as? [Any] { all["has-" + key] = !list.isEmpty }
        }
        all["title"] = title
        all["marketplace"] = try await marketplaceName()
        all["csrfToken"] = session.csrfToken
        all["memberEmail"] = session.account.email
        all["developerName"] = session.developer.name
        all["memberRole"] = session.member.role.rawValue
        all["isOwner"] = session.isOwner
        all["mustEnrol"] = session.mustEnrol
        return pages.response(template, all, status: status)
    }

    /// The AppleItemID in the path, or 404.
    static func appleItemId(_ context: Context) throws -> UInt64 {
        guard let id = context.parameters.get("item").flatMap(AppleID.parse) else { throw DeveloperOwnership.noApp }
        return id
    }
}
