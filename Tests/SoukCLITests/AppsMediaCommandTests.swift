import Foundation
@testable import SoukCLI
import SoukCore
import SoukServe
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// `souk apps media` and `souk apps feature`, in-process on both databases.
@Suite struct AppsMediaCommandTests {
    @Test(arguments: TestBackend.available)
    func mediaAndFeaturingAreSetFromTheCommandLine(backend: TestBackend) async throws {
        try await WebhooksCommandTests.with(backend) { settings, config in
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let icon = folder.path + "/icon.png", wide = folder.path + "/wide.png", shot = folder.path + "/shot.png", bad = folder.path + "/bad.png"
            try PNG.encode(RGBAImage(width: 128, height: 128, fill: (5, 6, 7, 255))).write(to: URL(fileURLWithPath: icon))
            try PNG.encode(RGBAImage(width: 128, height: 64, fill: (5, 6, 7, 255))).write(to: URL(fileURLWithPath: wide))
            try PNG.encode(RGBAImage(width: 640, height: 1136, fill: (50, 60, 70, 255))).write(to: URL(fileURLWithPath: shot))
            try Data(PNG.signature + [0, 0, 0, 13]).write(to: URL(fileURLWithPath: bad))
            try await SoukCommand.run(["apps", "create", "--apple-item-id", "6450000001", "--bundle-id", "org.example.media", "--name", "Media"] + settings)
            let media = ["apps", "media", "--apple-item-id", "6450000001"]
            try await SoukCommand.run(media + ["--icon", icon, "--screenshot", "iphone=\(shot)", "--screenshot", "iphone=\(shot)",
                                               "--screenshot", "ipad=\(shot)", "--subtitle", "Pictures", "--category", "photo-video",
                                               "--description", "All about it", "--whats-new", "Everything"] + settings)
            try await SoukCommand.run(["apps", "feature", "--apple-item-id", "6450000001", "--order", "3"] + settings)
            try await WebhooksCommandTests.withRuntime(config) { runtime in
                let app = try await runtime.catalog.app(appleItemId: 6_450_000_001)
                #expect(app.appCategory == .photoVideo && app.subtitle == "Pictures" && app.whatsNew == "Everything")
                #expect(app.media?.icon?.width == 128 && app.media?.screenshots(for: .iphone).count == 2)
                #expect(app.featuredOrder == 3)
            }
            try await SoukCommand.run(["apps", "feature", "--apple-item-id", "6450000001", "--remove"] + settings)
            try await SoukCommand.run(["apps", "show", "--apple-item-id", "6450000001"] + settings)
            #expect(try await WebhooksCommandTests.withRuntime(config) { try await $0.catalog.featuredApps() }.isEmpty)

            // Validation: a category off the list, a bad --screenshot, nothing to set.
            for wrong in [["--category", "social"], ["--screenshot", "watch=\(shot)"], ["--screenshot", shot], []] {
                #expect(throws: (any Error).self) { try AppsCommand.Media.parse(["--apple-item-id", "6450000001"] + wrong + settings) }
            }
            // A file that is not a decodable PNG, and a non-square icon, are refused before anything changes.
            await #expect(throws: (any Error).self) { try await SoukCommand.run(media + ["--icon", bad] + settings) }
            await #expect(throws: (any Error).self) { try await SoukCommand.run(media + ["--screenshot", "ipad=\(bad)"] + settings) }
            await #expect(throws: (any Error).self) { try await SoukCommand.run(media + ["--icon", wide] + settings) }
            await #expect(throws: (any Error).self) { try await SoukCommand.run(media + ["--icon", folder.path + "/missing.png"] + settings) }
            let app = try await WebhooksCommandTests.withRuntime(config) { try await $0.catalog.app(appleItemId: 6_450_000_001) }
            #expect(app.media?.icon?.width == 128 && app.media?.screenshots(for: .ipad).count == 1)
        }
    }

    @Test(arguments: TestBackend.available)
    func theIconIsSetAtCreationAndAfterAndEachChangeIsAudited(backend: TestBackend) async throws {
        try await WebhooksCommandTests.with(backend) { settings, config in
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let icon = folder.path + "/icon.png", other = folder.path + "/other.png", bad = folder.path + "/bad.png"
            try PNG.encode(RGBAImage(width: 64, height: 64, fill: (1, 2, 3, 255))).write(to: URL(fileURLWithPath: icon))
            try PNG.encode(RGBAImage(width: 64, height: 64, fill: (9, 9, 9, 255))).write(to: URL(fileURLWithPath: other))
            try Data("not a png".utf8).write(to: URL(fileURLWithPath: bad))
            try await SoukCommand.run(["apps", "create", "--apple-item-id", "6450000002", "--bundle-id", "org.example.icon",
                                       "--name", "Icon", "--icon", icon] + settings)
            let first = try await WebhooksCommandTests.withRuntime(config) { try await $0.catalog.appRecord(appleItemId: 6_450_000_002).iconSHA256 }
            #expect(first != nil)
            try await SoukCommand.run(["apps", "set-icon", "--apple-item-id", "6450000002", "--icon", other] + settings)
            // A file that is not a PNG changes nothing.
            await #expect(throws: (any Error).self) {
                try await SoukCommand.run(["apps", "set-icon", "--apple-item-id", "6450000002", "--icon", bad] + settings)
            }
            try await WebhooksCommandTests.withRuntime(config) { runtime in
                let now = try await runtime.catalog.appRecord(appleItemId: 6_450_000_002).iconSHA256
                #expect(now != nil && now != first)
                let entries = try await AuditLog(database: runtime.database).list(action: "app.media", target: "app:6450000002")
                #expect(entries.count == 2)
                #expect(entries.allSatisfy { $0.actor.hasPrefix("cli:") })
                #expect(entries.first?.after?.contains(now ?? "-") == true)
            }
        }
    }

    @Test func validationMessagesNameTheProblem() throws {
        #expect(throws: (any Error).self) { try AppsCommand.Media.parse(["--apple-item-id", "1", "--category", "social"]) }
        do {
            _ = try AppsCommand.Media.parse(["--apple-item-id", "1", "--category", "social"])
        } catch {
            #expect(AppsCommand.Media.message(for: error).contains("health-fitness"))
        }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let bad = folder.path + "/bad.png"
        try Data("not a png".utf8).write(to: URL(fileURLWithPath: bad))
        #expect(throws: (any Error).self) { try AppsCommand.Media.readPNG(bad, option: "--icon", square: true) }
        do {
            _ = try AppsCommand.Media.readPNG(bad, option: "--icon")
        } catch {
            #expect("\(error)".contains("not a PNG file"))
        }
    }
}
