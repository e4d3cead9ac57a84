import Foundation
@testable import SoukCLI
import SoukCore
import SoukServe
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// The CLI's changes land in the audit log with actor `cli:<user>`, and `souk audit export` writes
/// them as JSON lines, on both databases.
@Suite struct AuditCommandTests {
    @Test(arguments: TestBackend.available)
    func commandsThatChangeThingsAreAuditedAndExported(backend: TestBackend) async throws {
        try await WebhooksCommandTests.with(backend) { settings, config in
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            try await SoukCommand.run(["apps", "create", "--apple-item-id", "6450000009", "--bundle-id", "org.example.audit", "--name", "Audited"] + settings)
            try await SoukCommand.run(["apps", "set-price", "--apple-item-id", "6450000009", "--amount", "199", "--currency", "USD"] + settings)
            try await SoukCommand.run(["apps", "takedown", "--apple-item-id", "6450000009", "--reason", "policy"] + settings)
            try await SoukCommand.run(["apps", "takedown", "--apple-item-id", "6450000009", "--reason", "policy"] + settings)  // no change: no entry
            try await SoukCommand.run(["apps", "reinstate", "--apple-item-id", "6450000009"] + settings)
            try await SoukCommand.run(["webhooks", "add", "--app", "org.example.audit", "--url", "https://hooks.example/a",
                                       "--secret", "audit-secret-0123456789"] + settings)
            try await SoukCommand.run(["keys", "rotate"] + settings)
            try await SoukCommand.run(["marketplace", "set", "--name", "Audited Market"] + settings)
            let out = folder.path + "/audit.jsonl"
            try await SoukCommand.run(["audit", "export", "--out", out] + settings)
            let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
            let entries = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
            // (The harness made its account with `souk accounts create` first.)
            #expect(entries.map { $0["action"] as? String } == ["account.create", "app.create", "app.price", "app.takedown", "app.reinstate", "webhook.add",
                                                                 "key.rotate", "marketplace.set"])
            #expect(entries.allSatisfy { ($0["actor"] as? String)?.hasPrefix("cli:") == true && $0["at"] is String })
            let takedown = try #require(entries.first { $0["action"] as? String == "app.takedown" })
            #expect((takedown["before"] as? [String: String])?["availability"] == "available")
            #expect((takedown["after"] as? [String: String]) == ["availability": "taken_down", "reason": "policy"])
            #expect(!String(decoding: try Data(contentsOf: URL(fileURLWithPath: out)), as: UTF8.self).contains("audit-secret"))
        }
    }

    @Test(arguments: TestBackend.available)
    func catalogChangesAreExportedWithEachOldAndNewValue(backend: TestBackend) async throws {
        try await WebhooksCommandTests.with(backend) { settings, _ in
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let file = folder.path + "/catalog.json"
            try CommerceCatalogSamples.readerFile.write(toFile: file, atomically: true, encoding: .utf8)
            try await SoukCommand.run(["catalog", "apply", file] + settings)
            var catalog = CommerceCatalogSamples.reader
            catalog.products[0].prices = [Price(currency: "USD", amount: 549), Price(currency: "EUR", amount: 499)]
            try CatalogFile.encode(catalog).write(toFile: file, atomically: true, encoding: .utf8)
            try await SoukCommand.run(["catalog", "apply", file] + settings)
            try await SoukCommand.run(["stores", "set", "--app", CommerceCatalogSamples.readerApp, "--store", "amazon",
                                       "--shared-secret-env", "READER_AMAZON"] + settings)
            try await SoukCommand.run(["apps", "create", "--apple-item-id", "6450000009", "--bundle-id", "org.example.audit", "--name", "Audited"] + settings)
            try await SoukCommand.run(["apps", "set-price", "--apple-item-id", "6450000009", "--amount", "199", "--currency", "USD"] + settings)
            try await SoukCommand.run(["apps", "set-price", "--apple-item-id", "6450000009", "--amount", "249", "--currency", "USD"] + settings)
            let out = folder.path + "/audit.jsonl"
            try await SoukCommand.run(["audit", "export", "--out", out] + settings)
            let entries = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").map {
                try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
            let applies = entries.filter { $0["action"] as? String == "catalog.apply" }
            #expect(applies.count == 3)
            func fields(_ entry: [String: Any], _ side: String) -> [String: String] { entry[side] as? [String: String] ?? [:] }
            // The catalog made: each value new.
            #expect(fields(applies[0], "before")["product reader.monthly: prices"] == nil)
            #expect(fields(applies[0], "after")["product reader.monthly: prices"] == "4.99 USD, 4.99 EUR")
            // A price edit: the old and new prices, with their currencies.
            #expect(fields(applies[1], "before") == ["revision": "1", "product reader.monthly: prices": "4.99 USD, 4.99 EUR"])
            #expect(fields(applies[1], "after")["product reader.monthly: prices"] == "5.49 USD, 4.99 EUR")
            #expect(fields(applies[1], "after")["revision"] == "2")
            // A store setting: by its reference, the old value absent.
            #expect(fields(applies[2], "before")["stores.amazon: sharedSecretEnv"] == nil)
            #expect(fields(applies[2], "after")["stores.amazon: sharedSecretEnv"] == "READER_AMAZON")
            // An app's price: old and new.
            let prices = entries.filter { $0["action"] as? String == "app.price" }
            #expect(prices.map { fields($0, "before")["price"] } == ["free", "1.99 USD"])
            #expect(prices.map { fields($0, "after")["price"] } == ["1.99 USD", "2.49 USD"])
        }
    }
}
