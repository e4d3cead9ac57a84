import ArgumentParser
import Foundation
import SoukApp
import SoukCore
import SoukStore

/// `souk content import|list`: hosted content packages of in-app products.
struct ContentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "content", abstract: "Import and list hosted content packages of in-app products.",
        subcommands: [Import.self, List.self]
    )

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Import a content package (a folder or a zip with ContentInfo.plist and Contents/) for one product of an app.")
        @OptionGroup var settings: SettingsOptions
        @Argument(help: "The package folder or zip file.") var path: String
        @Option(help: "The app (bundle id / package name) whose catalog holds the product.") var app: String

        func run() async throws {
            try await withRuntime(settings) { runtime in
                do {
                    switch try await MarketplaceOperations(runtime: runtime).importContent(actor: .currentCLIUser, at: path, app: app) {
                    case .imported(let content):
                        print("Imported \(content.productId) \(content.contentVersion): \(content.size) bytes, SHA-256 \(content.sha256)")
                        print("  \(runtime.config.publicURL)/commerce/\(content.app)/content/\(content.productId)/\(content.contentVersion)")
                    case .alreadyImported(let content):
                        print("Already imported \(content.productId) \(content.contentVersion) with the same bytes: nothing changed")
                    }
                } catch let error as PackageError {
                    throw CommandFailure("content package rejected: \(error)")
                }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the hosted content versions of an app's products, newest first.")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "The app (bundle id / package name).") var app: String
        @Option(help: "Only this product.") var product: String?

        func run() async throws {
            try await withRuntime(settings) { runtime in
                let store = HostedContentStore(database: runtime.database, blobs: runtime.blobs, workArea: runtime.config.workDir)
                let contents = if let product { try await store.versions(app: app, productId: product) } else { try await store.list(app: app) }
                print(ContentCommand.render(contents))
            }
        }
    }

    static func render(_ contents: [HostedContent]) -> String {
        guard !contents.isEmpty else { return "No hosted content." }
        return Table(["PRODUCT", "VERSION", "SIZE", "SHA-256", "IMPORTED"], contents.map {
            [$0.productId, $0.contentVersion.text, String($0.size), $0.sha256, Table.date($0.createdAt)]
        }).render()
    }
}
