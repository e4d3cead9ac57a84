import Foundation
@testable import SoukCLI
import SoukApp
import SoukCore
import SoukServe
import SoukStore
import SoukTestSupport
import Testing

/// `souk rates set|list` and the exchange-rate operation, on both databases.
@Suite struct RatesCommandTests {
    @Test(arguments: TestBackend.available)
    func theOperatorSetsReplacesAndListsRates(backend: TestBackend) async throws {
        try await WebhooksCommandTests.with(backend) { settings, config in
            try await SoukCommand.run(["rates", "list"] + settings)
            try await SoukCommand.run(["rates", "set", "--currency", "EUR", "--per-usd", "0.92", "--from", "2026-11-01"] + settings)
            try await SoukCommand.run(["rates", "set", "--currency", "EUR", "--per-usd", "0.9", "--from", "2026-10-01"] + settings)
            try await SoukCommand.run(["rates", "set", "--currency", "EUR", "--per-usd", "0.93", "--from", "2026-11-01"] + settings)
            try await SoukCommand.run(["rates", "set", "--currency", "JPY", "--per-usd", "150", "--from", "2026-11-01"] + settings)
            for bad in [["--currency", "EURO", "--per-usd", "0.9", "--from", "2026-11-01"],
                        ["--currency", "USD", "--per-usd", "1", "--from", "2026-11-01"],
                        ["--currency", "EUR", "--per-usd", "0", "--from", "2026-11-01"],
                        ["--currency", "EUR", "--per-usd", "0.9", "--from", "2026-11-31"]] {
                await #expect(throws: CommandFailure.self, "\(bad)") { try await SoukCommand.run(["rates", "set"] + bad + settings) }
            }
            try await SoukCommand.run(["rates", "list"] + settings)
            try await SoukCommand.run(["rates", "list", "--currency", "EUR"] + settings)
            try await WebhooksCommandTests.withRuntime(config) { runtime in
                let rates = ExchangeRates(database: runtime.database)
                let listed = try await rates.list(actor: .cli(user: "t")).map(\.rate)
                #expect(listed.map { "\($0.currency) \($0.perUSDText) \($0.from)" }
                        == ["EUR 0.9 2026-10-01", "EUR 0.93 2026-11-01", "JPY 150 2026-11-01"])
                #expect(try await rates.list(actor: .cli(user: "t"), currency: "JPY").count == 1)
                let audit = try await AuditLog(database: runtime.database).list(action: AuditAction.ratesSet.rawValue)
                #expect(audit.count == 4 && audit.allSatisfy { $0.actor.hasPrefix("cli:") })
                #expect(audit.contains { $0.target == "rate:EUR/2026-11-01" && $0.before?.contains("0.92") == true })
                // Developers neither set nor read them; support staff read but do not set.
                let key = SoukActor.developerKey(keyID: UUID(), developerID: "acme", scopes: [.metricsRead])
                await #expect(throws: DeveloperOperationError.self) { _ = try await rates.list(actor: key) }
                let support = SoukActor.staff(accountID: UUID(), email: "s@example.com", role: .support)
                await #expect(throws: DeveloperOperationError.self) {
                    try await rates.set(actor: support, currency: "GBP", perUSD: "0.8", from: "2026-11-01")
                }
                #expect(try await rates.list(actor: support).count == 3)
                let converter = try await ExchangeRateStore(database: runtime.database).converter(reportingCurrency: "EUR")
                #expect(try converter.convert(1500, "JPY", on: MetricDay("2026-11-02")!).get() == 930)
            }
        }
    }

    @Test func theReportingCurrencyIsAnISOCode() async throws {
        #expect(try await SoukConfig.load(flags: [:], environment: [:]).reportingCurrency == "USD")
        #expect(try await SoukConfig.load(flags: [:], environment: ["SOUK_REPORTING_CURRENCY": "EUR"]).reportingCurrency == "EUR")
        await #expect(throws: (any Error).self) {
            _ = try await SoukConfig.load(flags: [:], environment: ["SOUK_REPORTING_CURRENCY": "euro"])
        }
    }
}
