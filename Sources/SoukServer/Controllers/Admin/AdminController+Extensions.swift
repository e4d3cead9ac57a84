import Foundation
import Hummingbird
import SoukApp
import SoukCore
import SoukIntegrations
import SoukStore

/// An app's App Store renewal-date extensions in the console (docs/stores.md): the requests asked
/// for the app with Apple's outcome (`souk subscriptions extensions`), and the form that extends
/// every active subscriber of a product (`souk subscriptions extend --all-active`). The form is
/// checked, then shown to confirm, then sent through the same `AppleOperations`, which records the
/// request and writes the audit entry with the operator as actor. Operators only, as the
/// extension of one person's subscriptions (`StaffScope.Action.extendSubscriptions`).
extension AdminController {
    func addExtensionRoutes(to routes: ConsoleRoutes<Context>) {
        routes.staff.get("catalog/:app/extensions", use: extensionsPage)
        routes.staff.post("catalog/:app/extensions", use: extendAllSubscribers)
    }

    /// What the form sent (kept to show it again with an error or to confirm).
    struct MassExtensionForm {
        var product = "", days = "", reason = "3", storefronts = "", environment = CommerceEnvironment.production.rawValue
        var confirmed = false

        init() {}

        init(_ form: FormBody) {
            func field(_ name: String) -> String { (form[name] ?? "").trimmingCharacters(in: .whitespaces) }
            product = field("product")
            days = field("days")
            reason = field("reason")
            storefronts = field("storefronts")
            environment = field("environment")
            confirmed = field("confirmed") == "yes"
        }

        /// The storefront codes, separated by commas or spaces.
        var storefrontCodes: [String] {
            storefronts.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
        }
    }

    /// Apple's reason codes (`extendReasonCode`) as the forms offer them.
    static var extendReasons: [(code: String, label: String)] {
        [("3", "Service issue or outage"), ("1", "Customer satisfaction"), ("2", "Other"), ("0", "Undeclared")]
    }

    /// `GET /admin/catalog/<app>/extensions` (`?requested=<request id>` after a request was sent).
    @Sendable func extensionsPage(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireConsoleSession()
        let state = try await requireCatalog(context)
        let rows = try await services.renewalExtensions.requests(app: state.catalog.app)
        var notice: String?
        if let requested = request.uri.queryParameters["requested"].map(String.init),
           let row = rows.first(where: { $0.requestIdentifier == requested }) {
            notice = "Asked Apple to extend every active subscriber of \(row.productId ?? "-") by \(row.extendByDays) days (request "
                + "\(row.requestIdentifier)). Apple extends them in the background; the entitlements move when it is complete."
        }
        return try await extensionsEditor(session: session, state: state, rows: rows, form: MassExtensionForm(), notice: notice, error: nil)
    }

    /// `POST /admin/catalog/<app>/extensions`: checks the form (nothing written on an error), shows
    /// the plan to confirm, and once confirmed asks Apple, then redirects to the page (303), where
    /// the request's status shows.
    @Sendable func extendAllSubscribers(_ request: Request, context: Context) async throws -> Response {
        let (session, body) = try await consoleForm(request, context: context)
        let state = try await requireCatalog(context)
        let app = state.catalog.app
        let form = MassExtensionForm(body)
        let store = services.renewalExtensions
        func again(_ error: String, _ status: HTTPResponse.Status) async throws -> Response {
            try await extensionsEditor(session: session, state: state, rows: try await store.requests(app: app), form: form, notice: nil,
                                       error: error, status: status)
        }
        guard let days = Int(form.days), let reason = Int(form.reason) else {
            return try await again("Give the days (1 to 90) and a reason.", .badRequest)
        }
        guard let environment = CommerceEnvironment(rawValue: form.environment) else {
            return try await again("The environment must be Production or Sandbox.", .badRequest)
        }
        let operations = try services.stores.apple()
        do {
            let plan = try await operations.planMassExtension(app: app, product: form.product, days: days, reason: reason,
                                                              storefronts: form.storefrontCodes, environment: environment,
                                                              actor: Self.staffActor(session))
            guard form.confirmed else { return try await confirmMassExtension(session: session, plan: plan) }
            let row = try await operations.extendAll(plan, actor: Self.staffActor(session))
            guard row.status == .pending else { return try await again("Apple refused the extension: \(row.detail ?? "-").", .badGateway) }
            return WebPage.seeOther("\(Self.extensionsPath(app))?requested=\(row.requestIdentifier)")
        } catch PeopleOperationError.refused(let reason) {
            throw Problem(.forbidden, reason)
        } catch let refusal as AppleOperations.Refusal {
            return try await again("Not sent: \(refusal.description).", .badRequest)
        } catch let fault as StoreFault {
            return try await again("Apple gave no answer (\(fault.description)); nothing was extended. Try again later.", .serviceUnavailable)
        }
    }

    static func extensionsPath(_ app: String) -> String { "/admin/catalog/\(pathComponent(app))/extensions" }

    private func confirmMassExtension(session: ConsoleSession, plan: AppleOperations.MassExtensionPlan) async throws -> Response {
        let reason = Self.extendReasons.first { $0.code == String(plan.reason) }?.label ?? String(plan.reason)
        return try await render(.adminExtensionConfirm, session: session, title: "Extend every subscriber of \(plan.product)",
                                page: ExtensionConfirmValues(
            app: plan.app, product: plan.product, appleProductId: plan.appleProductId, days: String(plan.days),
            reason: String(plan.reason), reasonLabel: reason, environment: plan.environment.rawValue,
            storefronts: plan.storefronts?.joined(separator: ",") ?? "",
            storefrontsText: plan.storefronts.map { "storefronts " + $0.joined(separator: ", ") } ?? "every storefront",
            action: Self.extensionsPath(plan.app), pageHref: Self.extensionsPath(plan.app)))
    }

    private func extensionsEditor(session: ConsoleSession, state: CommerceCatalogState, rows: [AppleRenewalExtension], form: MassExtensionForm,
                                  notice: String?, error: String?, status: HTTPResponse.Status = .ok) async throws -> Response {
        let app = state.catalog.app
        func count<T: BinaryInteger>(_ value: T?) -> String { value.map { String($0) } ?? "-" }
        let values = ExtensionsValues(
            app: app, catalogHref: "/admin/catalog/\(Self.pathComponent(app))", action: Self.extensionsPath(app),
            canExtend: session.role >= StaffScope.Action.extendSubscriptions.minimumRole,
            subscriptions: state.catalog.products.filter { $0.type == .autoRenewable }.map { product in
                .init(id: product.id, sku: product.skus[.appleStore] ?? product.id, selected: product.id == form.product)
            },
            reasons: Self.extendReasons.map { .init(code: $0.code, label: $0.label, selected: $0.code == form.reason) },
            environments: CommerceEnvironment.allCases.map { .init(name: $0.rawValue, selected: $0.rawValue == form.environment) },
            days: form.days, storefronts: form.storefronts,
            requests: rows.map { row in
                .init(requested: WebPage.format(row.requestedAt), kind: row.kind.rawValue, request: row.requestIdentifier,
                      product: row.productId ?? "-", subscription: row.originalTransactionId ?? "-", days: String(row.extendByDays),
                      reason: String(row.reasonCode), status: row.status.rawValue, succeeded: count(row.succeededCount),
                      failed: count(row.failedCount), moved: count(row.movedCount), by: row.requestedBy, detail: row.detail ?? "-",
                      environment: row.environment.rawValue)
            },
            notice: notice, error: error)
        return try await render(.adminExtensions, session: session, title: "Renewal-date extensions of \(app)", page: values, status: status)
    }
}
