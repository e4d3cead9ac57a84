import Foundation
import Hummingbird
import SoukApp
import SoukCore

/// The organisation's payout statements (`/developer/statements/<YYYY-MM>`, docs/developers.md
/// "Payouts"): the operator console's page (`PayoutStatementPage`, the `payout-statement` partial)
/// for the member's own organisation only, with a month picker and the CSV download.
extension DeveloperConsoleController {
    func addStatementRoutes(to routes: DeveloperConsoleRoutes<Context>) {
        routes.members.get("statements", use: statementMonthPicked)
        routes.members.get("statements/:month", use: statementPage)
        routes.members.get("statements/:month/csv", use: statementCSV)
    }

    static var statementsPath: String { "/developer/statements" }

    /// `/developer/statements[?month=YYYY-MM]`: 303 to the month picked, this month without one.
    @Sendable func statementMonthPicked(_ request: Request, context: Context) async throws -> Response {
        _ = try context.requireDeveloperSession()
        let picked = request.uri.queryParameters["month"].map(String.init).flatMap(StatementMonth.init)
        let month = picked ?? StatementMonth(containing: services.now())
        return WebPage.seeOther("\(Self.statementsPath)/\(month)")
    }

    @Sendable func statementPage(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireDeveloperSession()
        let page = try await statement(session: session, context: context)
        var values = page.values
        values.pickerAction = Self.statementsPath
        return try await render(.developerPayoutStatement, session: session, title: "Statement, \(page.statement.month)", page: values)
    }

    @Sendable func statementCSV(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireDeveloperSession()
        return try await statement(session: session, context: context).csvResponse
    }

    /// The statement of the session's own organisation; there is no route to another's.
    private func statement(session: DeveloperSession, context: Context) async throws -> PayoutStatementPage {
        let month = context.parameters.get("month") ?? ""
        let statement: PayoutStatement
        do {
            statement = try await services.statements.statement(actor: session.actor, developerID: session.member.developerID, month: month)
        } catch PayoutStatements.Failure.invalidMonth {
            throw Problem(.notFound, "A statement is of a month: /developer/statements/YYYY-MM, e.g. 2026-11.")
        } catch PayoutStatements.Failure.notFound {
            throw Problem(.notFound, "No statement of yours has this month.")
        }
        return PayoutStatementPage(statement: statement, csvHref: "\(Self.statementsPath)/\(statement.month)/csv",
                                   monthBase: Self.statementsPath)
    }
}
