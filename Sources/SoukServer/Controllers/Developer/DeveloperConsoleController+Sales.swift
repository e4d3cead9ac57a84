import Foundation
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// `/developer/sales`: the newest paid-app sales of the organisation's marketplace apps and their
/// refunds, buyers by account token, never by email (in-app purchases and subscriptions are on each
/// catalog's purchases page).
extension DeveloperConsoleController {
    func addSalesRoutes(to routes: DeveloperConsoleRoutes<Context>) {
        routes.members.get("sales", use: salesPage)
    }

    @Sendable func salesPage(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireDeveloperSession()
        let format = WebPage.format
        let sales = try await services.operations.paidAppSales(actor: session.actor)
        let catalogs = try await services.directory.catalogs(of: session.member.developerID).map { app in
            DeveloperSalesValues.Catalog(app: app, href: Self.catalogPath(app) + "/purchases")
        }
        return try await render(.developerSales, session: session, title: "Sales", page: DeveloperSalesValues(
            catalogs: catalogs,
            sales: sales.map { sale in
                let amount = { (value: Int64) in "\(PayoutStatement.decimal(value, currency: sale.currency)) \(sale.currency)" }
                let refund = sale.amountRefunded.map { "\(amount($0))" + (sale.refundedAt.map { " on \(format($0))" } ?? "") } ?? ""
                return .init(app: sale.appName, appHref: "/developer/apps/\(sale.appleItemId)", accountToken: sale.accountToken.uuidString.lowercased(),
                             amount: amount(sale.amount), environment: sale.environment, paid: sale.paidAt.map(format) ?? "",
                             status: sale.status, refund: refund)
            }))
    }
}
