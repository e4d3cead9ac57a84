import ArgumentParser
import Foundation
import SoukCore
import SoukStore
import SoukApp

extension AppsCommand {
    /// The organisation `--developer` names, or nil without one; an unknown id fails before anything is written.
    static func organisation(_ id: String?, runtime: SoukRuntime) async throws -> Developer? {
        guard let id else { return nil }
        guard let developer = try await DeveloperDirectory(database: runtime.database).find(id) else {
            throw CommandFailure("no developer organisation has id “\(id)” (souk developers list shows them)")
        }
        return developer
    }

    /// `souk apps set-developer`: which organisation owns a marketplace app.
    struct SetDeveloper: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-developer", abstract: "Give an app to a developer organisation, or back to the marketplace (--none).")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "The app's AppleItemID.") var appleItemId: String
        @Option(help: "The organisation's id.") var developer: String?
        @Flag(help: "Give the app back to the marketplace.") var none = false

        func validate() throws {
            guard (developer != nil) != none else { throw ValidationError("give either --developer D or --none") }
        }

        func run() async throws {
            let id = try parseAppleID(appleItemId, option: "--apple-item-id")
            try await DevelopersCommand.run(settings) { operations, actor, _ in
                try await operations.setAppDeveloper(actor: actor, appleItemId: id, developer: developer)
            }
            print(developer.map { "App \(id) now belongs to \($0)" } ?? "App \(id) now belongs to the marketplace")
        }
    }
}

extension CatalogCommand {
    /// `souk catalog set-developer`: which organisation owns an in-app catalog.
    struct SetDeveloper: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-developer", abstract: "Give an in-app catalog to a developer organisation, or back to the marketplace (--none).")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "The app's bundle id / package name (its catalog's app).") var app: String
        @Option(help: "The organisation's id.") var developer: String?
        @Flag(help: "Give the catalog back to the marketplace.") var none = false

        func validate() throws {
            guard (developer != nil) != none else { throw ValidationError("give either --developer D or --none") }
        }

        func run() async throws {
            let move = try await DevelopersCommand.run(settings) { operations, actor, _ in
                try await operations.setCatalogDeveloper(actor: actor, app: app, developer: developer)
            }
            print(developer.map { "Catalog \(app) now belongs to \($0)" } ?? "Catalog \(app) now belongs to the marketplace")
            if move.credentialsRemoved > 0 {
                print("Removed its \(move.credentialsRemoved) sealed store credential(s) of the previous owner; set the new owner's with souk stores credentials set")
            }
        }
    }
}
