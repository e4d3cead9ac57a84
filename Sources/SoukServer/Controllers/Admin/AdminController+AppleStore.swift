import Foundation
import Hummingbird
import SoukApp
import SoukCore
import SoukIntegrations
import SoukStore

/// The console's App Store actions (docs/stores.md): extending a person's subscription renewal
/// dates (operators) and looking up the order id of a customer's App Store receipt (all staff).
/// `AppleOperations` writes the audit entries with the staff member as actor.
extension AdminController {
    /// `POST /admin/people/<id>/extend-subscriptions`: app, days (1…90), reason (Apple's code 0…3).
    @Sendable func extendSubscriptions(_ request: Request, context: Context) async throws -> Response {
        let (session, form) = try await consoleForm(request, context: context)
        let account = try await requirePerson(context)
        let app = (form["app"] ?? "").trimmingCharacters(in: .whitespaces)
        func answer(notice: String?, error: String?, status: HTTPResponse.Status) async throws -> Response {
            try await personPage(session: session, account: account, notice: notice, error: error, status: status)
        }
        guard let days = Int(form["days"] ?? ""), let reason = Int(form["reason"] ?? "") else {
            return try await answer(notice: nil, error: "Give the days (1 to 90) and a reason.", status: .badRequest)
        }
        do {
            let outcomes = try await services.stores.apple()
                .extend(app: app, person: account, days: days, reason: reason, actor: Self.staffActor(session))
            let lines = outcomes.map { outcome in
                switch outcome.result {
                case .extended(let date): "\(outcome.productId) renews \(WebPage.format(date))."
                case .refused(let why): "Apple did not extend \(outcome.productId): \(why)."
                }
            }
            return try await answer(notice: lines.joined(separator: " "), error: nil, status: .ok)
        } catch PeopleOperationError.refused(let reason) {
            throw Problem(.forbidden, reason)
        } catch let refusal as AppleOperations.Refusal {
            return try await answer(notice: nil, error: refusal.description, status: .badRequest)
        } catch let fault as StoreFault {
            return try await answer(notice: nil, error: "Apple gave no answer (\(fault.description)); nothing moved. Try again later.",
                                    status: .serviceUnavailable)
        }
    }

    /// `GET /admin/app-store-orders?app=&order=`: Apple's Look Up Order ID → the accounts and purchases.
    @Sendable func appStoreOrder(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireConsoleSession()
        let order = request.uri.queryParameters["order"].map { String($0).trimmingCharacters(in: .whitespaces) } ?? ""
        var app = request.uri.queryParameters["app"].map { String($0).trimmingCharacters(in: .whitespaces) } ?? ""
        // With one app selling in-app purchases, the app need not be named.
        if app.isEmpty, !order.isEmpty {
            let apps = try await services.commerceCatalogs.store.apps()
            if apps.count == 1 { app = apps[0] }
        }
        var values = AppStoreOrderValues(order: order, app: app)
        guard !order.isEmpty else { return try await render(.adminAppStoreOrder, session: session, title: "App Store order", page: values) }
        do {
            let finding = try await services.stores.apple().findOrder(app: app, orderId: order)
            var emails: [UUID: String] = [:]
            for id in finding.accounts { emails[id] = try await services.catalog.people.account(id: id)?.email }
            values.unknown = !finding.valid
            values.transactions = finding.transactions.map { row in
                let person = row.purchase?.accountId
                return .init(transaction: row.transactionId, product: row.productId ?? "-",
                             purchased: row.purchaseDate.map(WebPage.format) ?? "-", status: row.purchase?.status.rawValue ?? "-",
                             person: person?.uuidString.lowercased(),
                             email: person.map { emails[$0] ?? $0.uuidString.lowercased() })
            }
            return try await render(.adminAppStoreOrder, session: session, title: "App Store order", page: values)
        } catch let refusal as AppleOperations.Refusal {
            values.error = refusal.description
            return try await render(.adminAppStoreOrder, session: session, title: "App Store order", page: values, status: .badRequest)
        } catch let fault as StoreFault {
            values.error = "Apple gave no answer (\(fault.description)); try again later."
            return try await render(.adminAppStoreOrder, session: session, title: "App Store order", page: values, status: .serviceUnavailable)
        }
    }
}
