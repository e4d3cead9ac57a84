import Foundation
import Testing

/// Fluent models stay inside SoukStore (docs/development.md, "Layers"): the server, the operations
/// and the commands (`souk serve` and the benchmarks too) name value types (`AccountRecord`, `AppRecord`, …) that the stores return. A
/// source file there that names a model of `Sources/SoukStore/Models` fails this test, unless it is
/// one of `stillNamingModels`, the files not reshaped yet; a file on that list that no longer names
/// one fails too, so the list only shrinks.
@Suite struct ModelLayerTests {
    /// Files (under `Sources/`) that still name a Fluent model, to be reshaped one by one (none left:
    /// the benchmarks' bulk seeding goes through `CatalogStore.bulkAdd` and SQL).
    static let stillNamingModels: Set<String> = []

    static var sources: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources").standardizedFileURL
    }

    /// The models' type names, from their files' names (`AccountModel.swift` holds `AccountModel`).
    static func modelNames() throws -> Set<String> {
        let files = try FileManager.default.contentsOfDirectory(atPath: sources.appendingPathComponent("SoukStore/Models").path)
        return Set(files.filter { $0.hasSuffix("Model.swift") }.map { String($0.dropLast(".swift".count)) })
    }

    /// The models each Swift file of `target` names, by path under `Sources/`.
    static func namedModels(in target: String, models: Set<String>) throws -> [String: Set<String>] {
        let word = try Regex(#"\b[A-Z][A-Za-z]*Model\b"#)
        var found: [String: Set<String>] = [:]
        let folder = sources.appendingPathComponent(target)
        guard let files = FileManager.default.enumerator(atPath: folder.path) else { return [:] }
        for case let file as String in files where file.hasSuffix(".swift") {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            let named = Set(text.matches(of: word).map { String(text[$0.range]) }).intersection(models)
            if !named.isEmpty { found["\(target)/\(file)"] = named }
        }
        return found
    }

    @Test func onlyTheStoreNamesFluentModels() throws {
        let models = try Self.modelNames()
        #expect(models.contains("AccountModel") && models.contains("AppModel"))
        var named: [String: Set<String>] = [:]
        for target in ["SoukServer", "SoukApp", "SoukCLI", "SoukServe"] {
            named.merge(try Self.namedModels(in: target, models: models)) { $1 }
        }
        for (file, names) in named.sorted(by: { $0.key < $1.key }) where !Self.stillNamingModels.contains(file) {
            Issue.record("\(file) names \(names.sorted().joined(separator: ", ")): use a value type a store returns (docs/development.md, \"Layers\")")
        }
        for file in Self.stillNamingModels.sorted() where named[file] == nil {
            Issue.record("\(file) names no Fluent model any more: take it off ModelLayerTests.stillNamingModels")
        }
    }
}
