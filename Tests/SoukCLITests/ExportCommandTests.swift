import ArgumentParser
import Foundation
@testable import SoukCLI
import SoukApp
import SoukCore
import SoukServe
import SoukStore
import SoukTestSupport
import Testing

/// `souk export purchases|events` on both databases (docs/metrics.md, "Exports").
@Suite struct ExportCommandTests {
    static let app = "com.example.reader"

    @Test(arguments: TestBackend.available)
    func theOperatorExportsAnAppsPurchasesAndEventsToAFile(backend: TestBackend) async throws {
        try await WebhooksCommandTests.with(backend) { settings, config in
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let catalog = folder.path + "/catalog.json"
            try CommerceCatalogSamples.readerFile.replacingOccurrences(of: CommerceCatalogSamples.readerApp, with: Self.app)
                .write(toFile: catalog, atomically: true, encoding: .utf8)
            try await SoukCommand.run(["catalog", "apply", catalog] + settings)
            try await WebhooksCommandTests.withRuntime(config) { runtime in
                let account = try await runtime.catalog.requireAccount(email: "tester@example.com").requireID()
                for index in 0..<3 {
                    let at = MetricDay("2026-11-10")!.start.addingTimeInterval(Double(index) * 3600)
                    try await ExportRows.purchase(runtime.database, app: Self.app, account: account, at: at, transaction: "c\(index)")
                    try await ExportRows.event(runtime.database, app: Self.app, account: account, at: at, transaction: "c\(index)")
                }
            }
            let out = folder.path + "/purchases.csv"
            try await SoukCommand.run(["export", "purchases", "--app", Self.app, "--from", "2026-11-10", "--to", "2026-11-10",
                                       "--format", "csv", "--out", out] + settings)
            let csv = try String(contentsOfFile: out, encoding: .utf8)
            #expect(csv.split(separator: "\r\n").count == 4 && !csv.contains("tester@example.com"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["catalog.json", "purchases.csv"])
            let events = folder.path + "/events.jsonl"
            try await SoukCommand.run(["export", "events", "--app", Self.app, "--from", "2026-11-09", "--to", "2026-11-11",
                                       "--format", "jsonl", "--out", events] + settings)
            #expect(try String(contentsOfFile: events, encoding: .utf8).split(separator: "\n").count == 3)

            await #expect(throws: (any Error).self) {
                try await SoukCommand.run(["export", "purchases", "--app", Self.app, "--from", "2026-11-31", "--to", "2026-12-01",
                                           "--format", "csv"] + settings)
            }
            await #expect(throws: CommandFailure.self) {
                try await SoukCommand.run(["export", "events", "--app", "org.nobody.app", "--from", "2026-11-10", "--to", "2026-11-10",
                                           "--format", "csv", "--out", folder.path + "/nobody.csv"] + settings)
            }
            #expect(!FileManager.default.fileExists(atPath: folder.path + "/nobody.csv"))
            await #expect(throws: CommandFailure.self) { try await SoukCommand.run(["export", "scheduled"] + settings) }
            try await SoukCommand.run(["export", "scheduled", "--list"] + settings)
        }
    }
}
