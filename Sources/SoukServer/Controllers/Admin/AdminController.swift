import Foundation
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// The operator console (`/admin…`) for accounts with the `support` or `operator` role:
/// the dashboard, apps, catalogs, people, the audit log and the operator's own two-factor settings. Every route
/// is in a group of `ConsoleRoutes`, whose `ConsoleMiddleware` passes `ConsoleGate`; every change is written to the audit log with its before and after.
struct AdminController<Context: ConsoleRequestContext> {
    /// Everything the console uses (`OperatorConsoleServices`); it reaches nothing else.
    let services: OperatorConsoleServices
    let sessions: WebSessionStore
    let pages: Pages
    let totp: TOTPStore
    let audit: AuditLog
    let dashboardCache = DashboardCache()

    init(services: OperatorConsoleServices, sessions: WebSessionStore, pages: Pages) {
        self.services = services
        self.sessions = sessions
        self.pages = pages
        totp = services.totp
        audit = services.audit
    }

    var now: @Sendable () -> Date { services.now }

    /// What the operations shared with the developer console and the CLI use.
    var developerServices: DeveloperServices { services.developer }

    var gate: ConsoleGate {
        ConsoleGate(sessions: sessions, totp: totp, pages: pages, requiresTwoFactor: services.consoleRequiresTwoFactor,
                    marketplaceName: services.marketplaceName)
    }

    /// Rows per page of the people and audit lists.
    static var pageSize: Int { 50 }

    func addRoutes(to router: Router<Context>) {
        SecondFactorController<Context>(sessions: sessions, totp: totp, throttle: services.loginThrottle,
                                        pages: pages, marketplaceName: services.marketplaceName)
            .addRoutes(to: router)
        let routes = ConsoleRoutes(router.group("admin"), gate: gate)
        routes.staff.get(use: dashboard)
        routes.staff.get("people", use: people)
        routes.staff.get("people/:id", use: person)
        routes.staff.post("people/:id/grants", use: grant)
        routes.staff.post("people/:id/grants/:grant/revoke", use: revokeGrant)
        routes.staff.post("people/:id/disable", use: disable)
        routes.staff.post("people/:id/enable", use: enable)
        routes.staff.post("people/:id/reset-password", use: resetPassword)
        routes.staff.post("people/:id/sign-out", use: signOutPerson)
        routes.staff.post("people/:id/extend-subscriptions", use: extendSubscriptions)
        routes.staff.get("app-store-orders", use: appStoreOrder)
        routes.enrolment.get("security", use: security)
        routes.enrolment.post("security/confirm", use: confirmTOTP)
        routes.staff.get("audit", use: auditPage)
        addAppRoutes(to: routes)
        addCatalogRoutes(to: routes)
        addExtensionRoutes(to: routes)
        addIntegrationRoutes(to: routes)
        addRefundRoutes(to: routes)
        addClientRoutes(to: routes)
        addReviewRoutes(to: routes)
        addPayoutRoutes(to: routes)
        addCredentialRoutes(to: routes)
        addMetricsRoutes(to: routes)
    }

    /// The dashboard: what the marketplace holds now (as of at most a minute ago) and the last 30 days.
    @Sendable func dashboard(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireConsoleSession()
        let (counts, charts) = try await dashboardFigures()
        return try await render(.adminDashboard, session: session, title: "Console", page: DashboardValues(
            asOf: WebPage.format(counts.at),
            counts: [("Apps", counts.figures.apps), ("Accounts", counts.figures.accounts), ("Live licenses", counts.figures.liveLicenses),
                     ("Active subscriptions", counts.figures.activeSubscriptions), ("Active promotional grants", counts.figures.activeGrants)]
                .map { DashboardValues.Count(label: $0.0, value: String($0.1)) },
            recent: try await audit.list(limit: 10).map(Self.auditLine),
            charts: charts))
    }

    /// The form of a console POST, after `ConsoleMiddleware` let its session in: 403 without the
    /// session's CSRF token, 413 for a body over `maxBytes`.
    func consoleForm(_ request: Request, context: Context, maxBytes: Int = FormBody.maxBytes) async throws -> (ConsoleSession, FormBody) {
        let session = try context.requireConsoleSession()
        return (session, try await sessions.consoleForm(request, cookie: session.cookie, context: context, maxBytes: maxBytes))
    }

    /// A console page: the layout's values, the console's navigation and the session's CSRF token.
    /// Every page's values are a typed value (`PageContext`, `AdminPages.swift`).
    func render<Page: Sendable>(_ template: PageTemplate, session: ConsoleSession, title: String, page: Page,
                      status: HTTPResponse.Status = .ok) async throws -> Response {
        let layout = ConsoleLayout(title: title, marketplace: try await services.marketplaceName(),
                                   csrfToken: session.csrfToken, operatorEmail: session.account.email, role: session.role.rawValue,
                                   isOperator: session.isOperator, mustEnrol: session.mustEnrol)
        return pages.response(template, PageContext(layout: layout, page: page), status: status)
    }

    static func auditLine(_ entry: AuditEntry) -> AuditLine {
        AuditLine(at: WebPage.format(entry.at), actor: entry.actor, action: entry.action, target: entry.target,
                  changes: changes(before: entry.before, after: entry.after))
    }

    /// The fields an audit entry changed, as `field: before → after` lines (every field of a
    /// creation; a field only before was removed; long values shortened for the page — `souk audit
    /// export` has them whole).
    static func changes(before: String?, after: String?) -> [AuditLine.Change] {
        func fields(_ json: String?) -> [String: String] {
            guard let data = json?.data(using: .utf8), let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return [:] }
            return object.mapValues { "\($0)" }
        }
        func short(_ text: String) -> String { text.count > 160 ? String(text.prefix(159)) + "…" : text }
        let old = fields(before), new = fields(after)
        return Set(old.keys).union(new.keys).sorted().compactMap { key in
            guard old[key] != new[key] else { return nil }
            return AuditLine.Change(field: key, before: short(old[key] ?? ""), after: short(new[key] ?? ""), hasBefore: old[key] != nil,
                                    hasAfter: new[key] != nil)
        }
    }

    /// Links to the previous and next page of a list (`nil` where there is none).
    static func pager(path: String, query: [String: String], page: Int, hasMore: Bool) -> ConsolePager {
        func link(_ page: Int) -> String {
            var items = query.filter { !$0.value.isEmpty }.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
            items.append(URLQueryItem(name: "page", value: String(page)))
            var components = URLComponents()
            components.path = path
            components.queryItems = items
            return components.string ?? path
        }
        return ConsolePager(page: String(page), previous: page > 1 ? link(page - 1) : nil, next: hasMore ? link(page + 1) : nil)
    }

    static func page(_ request: Request) -> Int {
        max(1, request.uri.queryParameters["page"].flatMap { Int(String($0)) } ?? 1)
    }
}
