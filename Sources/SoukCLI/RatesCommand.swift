import ArgumentParser
import SoukApp
import SoukCore

/// `souk rates set|list`: the exchange rates metrics are converted with (docs/metrics.md, "Exchange rates").
struct RatesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rates", abstract: "Exchange rates (units per US dollar) that metrics are converted with.",
        subcommands: [SetRate.self, List.self])

    struct SetRate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set", abstract: "Set a currency's rate from a UTC day on (the same currency and day again replaces it).")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "ISO 4217 code, e.g. EUR.") var currency: String
        @Option(name: .customLong("per-usd"), help: "Units of the currency one US dollar buys, e.g. 0.92.") var perUSD: String
        @Option(help: "The first UTC day the rate is in force, YYYY-MM-DD.") var from: String

        func run() async throws {
            let rate = try await withRuntime(settings) { runtime in
                do {
                    return try await ExchangeRates(database: runtime.database)
                        .set(actor: .currentCLIUser, currency: currency, perUSD: perUSD, from: from)
                } catch let failure as DeveloperOperationError {
                    throw CommandFailure(failure.description)
                }
            }
            print("\(rate.currency) \(rate.perUSDText) per USD from \(rate.from)")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the rates, by currency, oldest first.")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "Only this currency.") var currency: String?

        func run() async throws {
            let rates = try await withRuntime(settings) { runtime in
                try await ExchangeRates(database: runtime.database).list(actor: .currentCLIUser, currency: currency)
            }
            guard !rates.isEmpty else { return print("No exchange rates.") }
            print(Table(["CURRENCY", "PER USD", "FROM", "SET BY", "SET AT"], rates.map { stored in
                [stored.rate.currency, stored.rate.perUSDText, stored.rate.from.description, stored.setBy, Table.date(stored.setAt)]
            }).render())
        }
    }
}
