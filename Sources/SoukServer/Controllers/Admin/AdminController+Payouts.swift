import Foundation
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// `/admin/developers/<id>/statements/<YYYY-MM>`: an organisation's payout statement of one month
/// (`PayoutStatements`, docs/developers.md "Payouts"), for operators and support, with its CSV.
extension AdminController {
    func addPayoutRoutes(to routes: ConsoleRoutes<Context>) {
        routes.staff.get("developers/:developer/statements/:month", use: payoutStatement)
        routes.staff.get("developers/:developer/statements/:month/csv", use: payoutStatementCSV)
    }

    @Sendable func payoutStatement(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireConsoleSession()
        let page = try await statementPage(session: session, context: context)
        return try await render(.adminPayoutStatement, session: session,
                                title: "Statement of \(page.statement.developerName), \(page.statement.month)", page: page.values)
    }

    @Sendable func payoutStatementCSV(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireConsoleSession()
        return try await statementPage(session: session, context: context).csvResponse
    }

    private func statementPage(session: ConsoleSession, context: Context) async throws -> PayoutStatementPage {
        let developer = context.parameters.get("developer") ?? ""
        let month = context.parameters.get("month") ?? ""
        let statement: PayoutStatement
        do {
            statement = try await developerServices.statements
                .statement(actor: Self.staffActor(session), developerID: developer, month: month)
        } catch PayoutStatements.Failure.invalidMonth {
            throw Problem(.notFound, "A statement is of a month: /statements/YYYY-MM, e.g. 2026-11.")
        } catch PayoutStatements.Failure.notFound {
            throw Problem(.notFound, "No developer organisation has this id.")
        }
        let base = "/admin/developers/\(Self.pathComponent(statement.developerID))/statements"
        return PayoutStatementPage(statement: statement, csvHref: "\(base)/\(statement.month)/csv", monthBase: base)
    }
}
