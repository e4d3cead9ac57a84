import Foundation
import SoukCore
import SoukStore

/// Monthly payout statements of developer organisations (docs/developers.md, "Payouts"): the
/// organisation's paid-app sales and refunds per currency, less the marketplace's commission (the
/// organisation's own `commission_percent`, else the server's `commissionPercent`). Staff of either
/// role and the operator's side read every organisation's; a member reads their own organisation's,
/// an API key with `metrics:read` too. Anything else is "not found", as if there were no such
/// organisation. One builder serves the CLI, the operator's console and the developer console.
public struct PayoutStatements: Sendable {
    package let directory: DeveloperDirectory
    package let ledger: PayoutLedger
    package let defaultCommissionPercent: Int

    public init(database: SoukDatabase, defaultCommissionPercent: Int) {
        self.directory = DeveloperDirectory(database: database)
        self.ledger = PayoutLedger(database: database)
        self.defaultCommissionPercent = defaultCommissionPercent
    }

    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// No such organisation, or none the actor may read.
        case notFound(String)
        /// Not a month `YYYY-MM`.
        case invalidMonth(String)

        public var description: String {
            switch self {
            case .notFound(let id): "no developer has id “\(id)”"
            case .invalidMonth(let text): "“\(text)” is not a month: YYYY-MM, e.g. 2026-11"
            }
        }
    }

    /// The statement of `developerID` for `month` (`YYYY-MM`, UTC).
    public func statement(actor: SoukActor, developerID: String, month text: String) async throws -> PayoutStatement {
        guard let month = StatementMonth(text) else { throw Failure.invalidMonth(text) }
        return try await statement(actor: actor, developerID: developerID, month: month)
    }

    /// The statement of `developerID` for `month`.
    public func statement(actor: SoukActor, developerID: String, month: StatementMonth) async throws -> PayoutStatement {
        guard Self.mayRead(actor, developerID: developerID), let developer = try await directory.find(developerID) else {
            throw Failure.notFound(developerID)
        }
        let percent = developer.commissionPercent ?? defaultCommissionPercent
        let lines = try await ledger.totals(developer: developer.id, from: month.start, to: month.end).map { totals in
            PayoutLine(currency: totals.currency, sales: totals.sales, gross: totals.gross, refundCount: totals.refundCount,
                       refunds: totals.refunds, commissionPercent: percent)
        }
        return PayoutStatement(developerID: developer.id, developerName: developer.name, month: month, commissionPercent: percent, lines: lines)
    }

    package static func mayRead(_ actor: SoukActor, developerID: String) -> Bool {
        switch actor {
        case .staff, .cli, .system: true
        case .developerMember(_, _, let own, _): own == developerID
        case .developerKey(_, let own, _): own == developerID && actor.developerMay(.metricsRead)
        }
    }
}
