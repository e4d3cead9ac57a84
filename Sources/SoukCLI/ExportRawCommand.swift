import ArgumentParser
import Foundation
import SoukApp
import SoukCore

/// `souk export purchases`.
struct ExportPurchasesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "purchases",
        abstract: "Every purchase of an app (all stores, and the marketplace's own sales of it) recorded in a range of UTC days.")
    @OptionGroup var options: RawExportOptions

    func run() async throws { try await options.export(.purchases) }
}

/// `souk export events`.
struct ExportEventsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Every lifecycle event of an app's purchases (and of its marketplace sales) recorded in a range of UTC days.")
    @OptionGroup var options: RawExportOptions

    func run() async throws { try await options.export(.events) }
}

/// The options of `souk export purchases|events`.
struct RawExportOptions: ParsableArguments {
    @OptionGroup var settings: SettingsOptions
    @Option(help: "The app's bundle id (its in-app catalog's id).") var app: String
    @Option(help: "The first UTC day, YYYY-MM-DD.") var from: String
    @Option(help: "The last UTC day, YYYY-MM-DD (included).") var to: String
    @Option(help: "csv or jsonl.") var format: String
    @Option(help: "Write to this file (made whole or not at all) instead of standard output.") var out: String?

    func export(_ kind: RawExportKind) async throws {
        let request: RawExportRequest
        do {
            request = try RawExportRequest.parse(kind: kind, app: app, from: from, to: to, format: format)
        } catch let failure as DeveloperOperationError {
            throw ValidationError(failure.description)
        }
        try await withRuntime(settings) { runtime in
            do {
                let stream = try await RawExports(runtime: runtime).open(actor: .currentCLIUser, request)
                try await ExportFile.write(to: out) { emit in try await stream.write(emit) }
            } catch let failure as DeveloperOperationError {
                throw CommandFailure(failure.description)
            }
        }
    }
}

/// Where `souk export` writes: standard output, or a file that appears only once it is whole (a
/// temporary file beside it, renamed at the end; removed on failure).
enum ExportFile {
    static func write(to path: String?, _ body: ((String) async throws -> Void) async throws -> Void) async throws {
        guard let path else {
            try await body { text in try FileHandle.standardOutput.write(contentsOf: Data(text.utf8)) }
            return
        }
        let temporary = path + ".partial-\(UUID().uuidString.prefix(8))"
        guard FileManager.default.createFile(atPath: temporary, contents: nil), let handle = FileHandle(forWritingAtPath: temporary) else {
            throw CommandFailure("cannot write \(path)")
        }
        do {
            try await body { text in try handle.write(contentsOf: Data(text.utf8)) }
            try handle.synchronize()
            try handle.close()
            if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
            try FileManager.default.moveItem(atPath: temporary, toPath: path)
        } catch {
            try? handle.close()
            try? FileManager.default.removeItem(atPath: temporary)
            throw error
        }
    }
}
