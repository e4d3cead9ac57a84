import ArgumentParser
import SoukCore
import SoukApp

/// `souk review list|approve|reject`: versions developers uploaded wait in review until the
/// operator releases or rejects them (docs/developers.md, "Review").
struct ReviewCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "review", abstract: "Review versions developers uploaded before they are offered.",
        subcommands: [List.self, Approve.self, Reject.self])

    /// Runs one review step as the CLI's actor; a refusal is an operator's `Error: …`.
    static func reviewing<T>(_ settings: SettingsOptions, _ body: (VersionReview, SoukActor) async throws -> T) async throws -> T {
        try await withRuntime(settings) { runtime in
            do {
                return try await body(VersionReview(database: runtime.database), .currentCLIUser)
            } catch let failure as VersionReview.Failure {
                throw CommandFailure(failure.description)
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the versions waiting in review, the longest-waiting first.")
        @OptionGroup var settings: SettingsOptions

        func run() async throws {
            let queue = try await ReviewCommand.reviewing(settings) { review, actor in try await review.queue(actor: actor) }
            guard !queue.isEmpty else { return print("No version is waiting in review.") }
            print(Table(["APPLE ITEM ID", "APPLE VERSION ID", "APP", "VERSION", "DEVELOPER", "UPLOADED"], queue.map { version in
                [String(version.appleItemId), String(version.appleVersionId), version.appName,
                 "\(version.shortVersionString) (\(version.bundleVersion))", version.developerID ?? "-", Table.date(version.uploadedAt)]
            }).render())
        }
    }

    struct Approve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Release a version in review: devices are offered it at once.")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "AppleItemID of the app.") var appleItemId: String
        @Option(help: "AppleVersionID of the version.") var appleVersionId: String

        func run() async throws {
            let item = try parseAppleID(appleItemId, option: "--apple-item-id")
            let version = try parseAppleID(appleVersionId, option: "--apple-version-id")
            let facts = try await ReviewCommand.reviewing(settings) { review, actor in
                try await review.approve(actor: actor, appleItemId: item, appleVersionId: version)
            }
            print("Released \(item)/\(version) (\(facts.shortVersionString), \(facts.bundleVersion))")
        }
    }

    struct Reject: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Reject a version in review; the developer is shown the reason.")
        @OptionGroup var settings: SettingsOptions
        @Option(help: "AppleItemID of the app.") var appleItemId: String
        @Option(help: "AppleVersionID of the version.") var appleVersionId: String
        @Option(help: "Why, as the developer is shown it (1–1000 characters).") var reason: String

        func validate() throws {
            let trimmed = reason.trimmingCharacters(in: .whitespacesAndNewlines)
            guard (1...VersionReview.maxReasonLength).contains(trimmed.count) else {
                throw ValidationError("--reason must be 1–\(VersionReview.maxReasonLength) characters")
            }
        }

        func run() async throws {
            let item = try parseAppleID(appleItemId, option: "--apple-item-id")
            let version = try parseAppleID(appleVersionId, option: "--apple-version-id")
            _ = try await ReviewCommand.reviewing(settings) { review, actor in
                try await review.reject(actor: actor, appleItemId: item, appleVersionId: version, reason: reason)
            }
            print("Rejected \(item)/\(version)")
        }
    }
}
