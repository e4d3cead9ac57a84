import ArgumentParser
import Foundation
import SoukApp
import SoukCore
import SoukStore

extension AppsCommand {
    /// `souk apps media`: what the storefront shows of an app.
    struct Media: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set an app's storefront media and text: icon, screenshots, subtitle, category, description, what's new.",
            discussion: "Images are 8-bit PNGs (not interlaced) of at most \(PNG.maxDimension)×\(PNG.maxDimension) pixels and \(PNG.maxFileBytes >> 20) MiB; "
                + "the icon is square. Screenshots given for a family replace that family's list. Categories: \(AppCategory.slugList).")
        @OptionGroup var settings: SettingsOptions
        @OptionGroup var selection: AppSelection
        @Option(help: "A square PNG icon.") var icon: String?
        @Option(help: ArgumentHelp("A screenshot, as iphone=FILE or ipad=FILE; repeat in display order.", valueName: "family=png"))
        var screenshot: [String] = []
        @Option(help: "Subtitle.") var subtitle: String?
        @Option(help: "Category slug (\(AppCategory.slugList)).") var category: String?
        @Option(help: "Description.") var description: String?
        @Option(help: "What's new in the latest version.") var whatsNew: String?

        func validate() throws {
            if let category, AppCategory(slug: category) == nil {
                throw ValidationError("--category '\(category)' is not one of: \(AppCategory.slugList)")
            }
            _ = try screenshotFiles()
            if icon == nil, screenshot.isEmpty, subtitle == nil, category == nil, description == nil, whatsNew == nil {
                throw ValidationError("give at least one of --icon, --screenshot, --subtitle, --category, --description, --whats-new")
            }
        }

        /// `--screenshot` values as (family, path), in order.
        func screenshotFiles() throws -> [(AppMedia.Family, String)] {
            try screenshot.map { value in
                let parts = value.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, let family = AppMedia.Family(rawValue: parts[0].lowercased()), !parts[1].isEmpty else {
                    throw ValidationError("--screenshot '\(value)' must be iphone=FILE or ipad=FILE")
                }
                return (family, parts[1])
            }
        }

        /// Reads a PNG and checks that it decodes (and, for the icon, that it is square).
        static func readPNG(_ path: String, option: String, square: Bool = false) throws -> Data {
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
            guard let size else { throw ValidationError("\(option) \(path): cannot read the file") }
            guard size <= PNG.maxFileBytes else { throw ValidationError("\(option) \(path): larger than \(PNG.maxFileBytes >> 20) MiB") }
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            do {
                let image = try PNG.decode(data)
                if square, image.width != image.height {
                    throw ValidationError("\(option) \(path): the icon must be square, it is \(image.width)×\(image.height)")
                }
            } catch let error as PNGError {
                throw ValidationError("\(option) \(path): \(error)")
            }
            return data
        }

        func run() async throws {
            let id = try selection.appleItemId()
            _ = try icon.map { try Self.readPNG($0, option: "--icon", square: true) }
            for (_, path) in try screenshotFiles() { _ = try Self.readPNG(path, option: "--screenshot") }
            try await withRuntime(settings) { runtime in
                // The consoles' operations, as the CLI's actor: the PNGs were checked above, so the
                // text is not saved when an image would then be refused.
                let services = DeveloperServices(runtime: runtime, now: Date.init)
                var app = try await runtime.catalog.appRecord(appleItemId: id)
                do {
                    if subtitle != nil || category != nil || description != nil || whatsNew != nil {
                        app = try await SaveAppText(services: services)(actor: .currentCLIUser, appleItemId: id, SaveAppText.Text(
                            subtitle: subtitle ?? app.subtitle, category: category ?? app.category ?? "",
                            description: description ?? app.appDescription, whatsNew: whatsNew ?? app.whatsNew ?? ""))
                    }
                    if icon != nil || !screenshot.isEmpty {
                        var images: [AppMedia.Family: [SaveAppMedia.Image]] = [:]
                        for (family, path) in try screenshotFiles() { images[family, default: []].append(.init(path: path, name: path)) }
                        app = try await SaveAppMedia(services: services)(actor: .currentCLIUser, appleItemId: id,
                                                                         icon: icon.map { .init(path: $0, name: $0) }, screenshots: images)
                    }
                } catch let error as DeveloperOperationError {
                    throw CommandFailure(error.description)
                }
                let media = app.media ?? AppMedia()
                print("Media set for \(app.appleItemId) \(app.bundleId): icon \(media.icon == nil ? "none" : "\(runtime.config.publicURL)/media/\(media.icon!.sha256).png"), "
                    + AppMedia.Family.allCases.map { "\(media.screenshots(for: $0).count) \($0.rawValue) screenshots" }.joined(separator: ", ")
                    + ", category \(app.appCategory?.displayName ?? "-")")
            }
        }
    }

    /// `souk apps feature`: the home page's featured apps.
    struct Feature: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Feature an app on the storefront's home page (lowest --order first), or stop featuring it with --remove.")
        @OptionGroup var settings: SettingsOptions
        @OptionGroup var selection: AppSelection
        @Option(help: "Its place among the featured apps (lowest first).") var order: Int = 0
        @Flag(help: "Stop featuring the app.") var remove = false

        func run() async throws {
            let id = try selection.appleItemId()
            try await withRuntime(settings) { runtime in
                try await MarketplaceOperations(runtime: runtime).setFeatured(actor: .currentCLIUser, appleItemId: id, order: remove ? nil : order)
                print(remove ? "App \(id) is no longer featured" : "App \(id) is featured at order \(order)")
            }
        }
    }
}
