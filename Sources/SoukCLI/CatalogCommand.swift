import ArgumentParser
import Foundation
import SoukApp
import SoukCore
import SoukStore

/// `souk catalog apply|show|list|import-storekit`: the in-app product catalogs (docs/commerce.md "Catalog").
struct CatalogCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "catalog", abstract: "In-app product catalogs: apply a catalog file, show one, import Xcode's StoreKit file.",
        subcommands: [Apply.self, Show.self, List.self, ImportStoreKit.self, SetDeveloper.self])

    struct Apply: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a catalog file true, atomically: products left out are retired; the same file twice changes nothing.")
        @OptionGroup var settings: SettingsOptions
        @Argument(help: "The catalog file (JSON).") var file: String
        @Flag(help: "Print what would change and change nothing.") var dryRun = false

        func run() async throws {
            let catalog = try CatalogCommand.read(file)
            try await withRuntime(settings) { runtime in
                print(try await CatalogCommand.apply(catalog, file: file, dryRun: dryRun, runtime: runtime))
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print an app's catalog in the catalog file's format.")
        @OptionGroup var settings: SettingsOptions
        @Argument(help: "The app's bundle id / package name.") var app: String

        func run() async throws {
            try await withRuntime(settings) { runtime in
                guard let state = try await runtime.commerceCatalogs.store.state(app: app) else {
                    throw CommandFailure("\(app) has no product catalog (souk catalog list shows the apps that have one)")
                }
                print(CatalogFile.encode(state.catalog), terminator: "")
                if !state.retired.isEmpty {
                    FileHandle.standardError.write(Data("retired (off sale, ids never reused): \(state.retired.map(\.id).joined(separator: ", "))\n".utf8))
                }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the apps that have a product catalog, with their revision.")
        @OptionGroup var settings: SettingsOptions

        func run() async throws {
            try await withRuntime(settings) { runtime in
                let store = runtime.commerceCatalogs.store
                for app in try await store.apps() {
                    guard let state = try await store.state(app: app) else { continue }
                    print("\(app)\trevision \(state.revision)\t\(state.catalog.products.count) on sale\t\(state.retired.count) retired")
                }
            }
        }
    }

    struct ImportStoreKit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import-storekit",
            abstract: "Apply the products, subscription groups and prices of Xcode's StoreKit configuration file to an app's catalog.",
            discussion: """
                Products are matched to the catalog by their Apple product id: matched products keep their Souk id, \
                entitlements, other stores' SKUs and promotion; new ones get the Apple product id as their id. \
                Products sold only in other stores are kept; Apple products missing from the file are retired.
                """)
        @OptionGroup var settings: SettingsOptions
        @Argument(help: "The .storekit file.") var file: String
        @Argument(help: "The app's bundle id / package name.") var app: String
        @Flag(help: "Print what would change and change nothing.") var dryRun = false
        @Option(help: "Write the resulting catalog file here instead of applying it.") var out: String?
        @Option(help: "How long the file's non-renewing subscriptions last (ISO 8601, e.g. P30D); the file does not say.")
        var nonRenewingDuration: String?
        @Option(help: "The currency of the file's prices, when settings._storefront does not give it (ISO 4217).") var currency: String?

        func run() async throws {
            guard let data = FileManager.default.contents(atPath: file) else { throw CommandFailure("cannot read \(file)") }
            var options = StoreKitConfiguration.Options(currency: currency)
            if let nonRenewingDuration {
                guard let duration = ISODuration(nonRenewingDuration) else {
                    throw CommandFailure("--non-renewing-duration \(nonRenewingDuration) is not an ISO 8601 duration such as P30D")
                }
                options.nonRenewingDuration = duration
            }
            let imported: CommerceCatalog
            do {
                imported = try StoreKitConfiguration.parse(Array(data), app: app, options: options)
            } catch {
                throw CommandFailure("\(file): \(error.description)")
            }
            try await withRuntime(settings) { runtime in
                let current = try await runtime.commerceCatalogs.store.state(app: app)
                let catalog = StoreKitConfiguration.merge(imported, into: current?.catalog)
                if let out {
                    try Data(CatalogFile.encode(catalog).utf8).write(to: URL(fileURLWithPath: out))
                    print("wrote \(out) (\(catalog.products.count) products); apply it with souk catalog apply \(out)")
                    return
                }
                print(try await CatalogCommand.apply(catalog, file: file, dryRun: dryRun, runtime: runtime))
            }
        }
    }

    /// Reads and validates a catalog file; a bad file fails naming the file and the offending path.
    static func read(_ file: String) throws -> CommerceCatalog {
        guard let data = FileManager.default.contents(atPath: file) else { throw CommandFailure("cannot read \(file)") }
        do {
            return try CatalogFile.parse(Array(data))
        } catch {
            throw CommandFailure("\(file): \(error.description) (nothing applied)")
        }
    }

    /// Applies through the operation the API and the consoles use (`DeveloperOperations.applyCatalog`:
    /// the runtime's cache, the audit entry) and answers the report's text ("…: no change" the second time).
    static func apply(_ catalog: CommerceCatalog, file: String, dryRun: Bool, runtime: SoukRuntime) async throws -> String {
        do {
            let report = try await DeveloperOperations(runtime: runtime).applyCatalog(actor: .currentCLIUser, catalog: catalog, dryRun: dryRun)
            return report.description
        } catch let error as CatalogFileError {
            throw CommandFailure("\(file): \(error.description) (nothing applied)")
        }
    }
}
