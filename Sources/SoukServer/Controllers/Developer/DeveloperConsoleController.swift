import Foundation
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// The developer console (`/developer…`, docs/developers.md, "Developer console") for members of a developer
/// organisation: their organisation's apps (text, media, package upload, versions) and in-app
/// catalogs (edit, review, apply), its API keys (owners), and their own two-factor settings. Every
/// route is in a group of `DeveloperConsoleRoutes`, whose middleware passes `DeveloperConsoleGate`;
/// handlers decode the form, call one operation of `Developers/` as the session's actor, and render. Another organisation's ids answer 404.
struct DeveloperConsoleController<Context: ConsoleRequestContext> {
    let services: DeveloperServices
    let sessions: WebSessionStore
    let pages: Pages
    let totp: TOTPStore
    let marketplaceName: @Sendable () async throws -> String
    let requiresTwoFactor: Bool
    /// Where the sealing key of store credentials is.
    let keysDir: String
    /// The metrics page's numbers (the API's operation).
    let metrics: DeveloperMetrics

    init(services: DeveloperServices, sessions: WebSessionStore, pages: Pages, totp: TOTPStore, metrics: DeveloperMetrics,
         requiresTwoFactor: Bool, keysDir: String, marketplaceName: @escaping @Sendable () async throws -> String) {
        self.services = services
        self.sessions = sessions
        self.pages = pages
        self.totp = totp
        self.metrics = metrics
        self.requiresTwoFactor = requiresTwoFactor
        self.keysDir = keysDir
        self.marketplaceName = marketplaceName
    }

    var gate: DeveloperConsoleGate {
        DeveloperConsoleGate(sessions: sessions, totp: totp, directory: services.directory, pages: pages,
                             requiresTwoFactor: requiresTwoFactor, marketplaceName: marketplaceName)
    }

    func addRoutes(to router: Router<Context>) {
        let routes = DeveloperConsoleRoutes(router.group("developer"), gate: gate)
        routes.members.get(use: home)
        routes.enrolment.get("security", use: security)
        routes.enrolment.post("security/confirm", use: confirmTOTP)
        addAppRoutes(to: routes)
        addCatalogRoutes(to: routes)
        addKeyRoutes(to: routes)
        addCommerceRoutes(to: routes)
        addCredentialRoutes(to: routes)
        addWebhookRoutes(to: routes)
        addStatementRoutes(to: routes)
        addSalesRoutes(to: routes)
        addMetricsRoutes(to: routes)
    }

    /// `/developer`: the organisation's apps and in-app catalogs.
    @Sendable func home(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireDeveloperSession()
        var apps: [DeveloperHomeValues.App] = []
        for id in try await services.directory.appleItemIds(of: session.member.developerID) {
            let app: AppRecord
            do {
                app = try await services.catalog.appRecord(appleItemId: id)
            } catch CatalogError.notFound {
                continue  // deleted since the list was read
            }
            apps.append(.init(id: String(id), name: app.name, bundleId: app.bundleId, availability: app.availability.summary))
        }
        var catalogs: [DeveloperHomeValues.Catalog] = []
        for app in try await services.directory.catalogs(of: session.member.developerID) {
            guard let state = try await services.commerceCatalogs.store.state(app: app) else { continue }
            catalogs.append(.init(app: app, href: Self.catalogPath(app), revision: String(state.revision),
                                  onSale: String(state.catalog.products.count)))
        }
        return try await render(.developerHome, session: session, title: session.developer.name, page: DeveloperHomeValues(apps: apps, catalogs: catalogs))
    }

    /// The form of a console POST, after `DeveloperConsoleMiddleware` let its session in: 403
    /// without the session's CSRF token, 413 for a body over `maxBytes`.
    func memberForm(_ request: Request, context: Context, maxBytes: Int = FormBody.maxBytes) async throws -> (DeveloperSession, FormBody) {
        let session = try context.requireDeveloperSession()
        return (session, try await sessions.consoleForm(request, cookie: session.cookie, context: context, maxBytes: maxBytes))
    }

    /// A console page: the layout's values, the console's navigation and the session's CSRF token.
    /// Every page's values are a typed value (`PageContext`, `DeveloperConsolePages.swift`).
    func render<Page: Sendable>(_ template: PageTemplate, session: DeveloperSession, title: String, page: Page,
                      status: HTTPResponse.Status = .ok) async throws -> Response {
        let layout = DeveloperConsoleLayout(title: title, marketplace: try await marketplaceName(), csrfToken: session.csrfToken,
                                            memberEmail: session.account.email, developerName: session.developer.name,
                                            memberRole: session.member.role.rawValue, isOwner: session.isOwner, mustEnrol: session.mustEnrol)
        return pages.response(template, PageContext(layout: layout, page: page), status: status)
    }

    /// The AppleItemID in the path, or 404.
    static func appleItemId(_ context: Context) throws -> UInt64 {
        guard let id = context.parameters.get("item").flatMap(AppleID.parse) else { throw DeveloperOwnership.noApp }
        return id
    }
}
