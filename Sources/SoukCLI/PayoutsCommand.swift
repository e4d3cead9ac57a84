import ArgumentParser
import SoukCore
import SoukApp

/// `souk payouts statement`: a developer organisation's monthly statement (docs/developers.md, "Payouts").
struct PayoutsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "payouts", abstract: "Developer organisations' sales, refunds, commission and payouts.",
        subcommands: [Statement.self])

    struct Statement: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print an organisation's statement of one month (UTC): per currency, sales, refunds, commission and payout.")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "The organisation's id.") var developer: String
        @Option(help: "The month, YYYY-MM (UTC).") var month: String
        @Flag(help: "Print CSV (amounts in major units) instead of a table.") var csv = false

        func validate() throws {
            guard StatementMonth(month) != nil else { throw ValidationError("--month must be a month YYYY-MM, e.g. 2026-11") }
        }

        func run() async throws {
            let statement = try await withRuntime(settings) { runtime in
                do {
                    return try await PayoutStatements(database: runtime.database, defaultCommissionPercent: runtime.config.commissionPercent)
                        .statement(actor: .currentCLIUser, developerID: developer, month: month)
                } catch let failure as PayoutStatements.Failure {
                    throw CommandFailure(failure.description)
                }
            }
            if csv { return print(statement.csv, terminator: "") }
            print("\(statement.developerName) (\(statement.developerID)), \(statement.month), commission \(statement.commissionPercent)%")
            guard !statement.lines.isEmpty else { return print("No sales or refunds this month.") }
            print(Table(["CURRENCY", "SALES", "GROSS", "REFUNDS", "NET", "COMMISSION", "PAYOUT"], statement.lines.map { line in
                let amount = { (value: Int64) in PayoutStatement.decimal(value, currency: line.currency) }
                return [line.currency, String(line.sales), amount(line.gross), "\(amount(line.refunds)) (\(line.refundCount))",
                        amount(line.net), amount(line.commission), amount(line.payout)]
            }).render())
        }
    }
}
