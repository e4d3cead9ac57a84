import ArgumentParser
import FluentKit
import Foundation
import Hummingbird
import SoukCLI
import SoukCore
import SoukStore
import SoukServer

/// `souk bench …`: the pieces `scripts/bench-updates.sh` needs — a large synthetic catalog and the
/// framework's floor route. Not for production data folders.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench", abstract: "Benchmark helpers (see scripts/bench-updates.sh).",
        subcommands: [SeedCatalog.self, Floor.self, ImportWhileServing.self, SeedPurchases.self, EntitlementFloor.self])

    /// First ids of the synthetic catalog: app i is `appBase + i` at version `versionBase + i`.
    static let appBase: UInt64 = 7_000_000_000
    static let versionBase: UInt64 = 8_000_000_000

    /// The seeded apps' words (names, subtitles, descriptions).
    static let words = ["notes", "weather", "photos", "music", "budget", "recipes", "maps", "fitness", "books", "chess", "travel",
                        "sleep", "garden", "language", "camera", "podcast", "calendar", "tasks", "news", "puzzle"]

    struct SeedCatalog: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "seed-catalog",
            abstract: "Add N public apps with one iOS 17.0+ version each (app 7000000000+i, version 8000000000+i).")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "How many apps.") var apps: Int = 100_000

        func run() async throws {
            guard (1...10_000_000).contains(apps) else { throw ValidationError("--apps must be 1–10000000") }
            try await withRuntime(settings) { runtime in
                let marketplace = try await runtime.catalog.marketplace(defaultKeyId: runtime.keys.installVerificationKeyId)
                if marketplace.appleItemId == 0 {
                    marketplace.appleItemId = 6_446_000_000
                    try await runtime.catalog.updateMarketplace(marketplace)
                }
                let started = ContinuousClock.now
                let release = Date(timeIntervalSince1970: 1_767_225_600)
                try await runtime.catalog.bulkAdd(count: apps) { i in
                    // Words for the storefront's search and a category each (scripts/bench-web.sh).
                    let word = BenchCommand.words[i % BenchCommand.words.count]
                    return BulkApp(appleItemId: BenchCommand.appBase + UInt64(i), bundleId: "org.example.bench\(i)",
                                   name: "Bench \(i) \(word.capitalized)", subtitle: "The \(word) app number \(i)",
                                   description: "Bench app \(i) keeps your \(word) and \(BenchCommand.words[(i / 7) % BenchCommand.words.count]) in order.",
                                   developerName: "Bench Developer \(i % 500)", category: AppCategory.allCases[i % AppCategory.allCases.count].slug,
                                   appleVersionId: BenchCommand.versionBase + UInt64(i), bundleVersion: "1", shortVersionString: "1.0",
                                   minimumOS: [.iOS: OSVersion("17.0")!], releaseDate: release)
                }
                print("Seeded \(apps) apps in \(ContinuousClock.now - started)")
            }
        }
    }

    struct Floor: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Serve the framework's floor: POST /marketplace-kit/v1/updates decoded and answered with Codable, no storage, no middleware.")
        @Option(help: "Port on 127.0.0.1.") var port: Int

        struct UpdatesRequest: Decodable {
            struct App: Decodable {
                var appleItemId: String
                var appleVersionId: String
            }
            var apps: [App]
            var platform: String
            var osVersion: String
        }

        struct UpdatesAnswer: ResponseEncodable {
            var failures: [String]
            var updates: [String]
        }

        func run() async throws {
            let router = Router()
            router.post("marketplace-kit/v1/updates") { request, context -> UpdatesAnswer in
                let decoded = try await request.decode(as: UpdatesRequest.self, context: context)
                // Touch what was decoded so the work cannot be skipped.
                return UpdatesAnswer(failures: decoded.apps.isEmpty ? ["none"] : [], updates: [])
            }
            let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
            try await app.runService()
        }
    }
}
