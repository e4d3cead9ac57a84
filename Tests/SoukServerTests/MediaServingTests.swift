import Foundation
import Hummingbird
import HummingbirdTesting
import SoukApp
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

/// `GET /media/<sha256>.png` on both databases: app media is immutable and cacheable, and nothing
/// else of the blob store (a package file, an unnamed blob) can be fetched there.
@Suite struct MediaServingTests {
    final class Names: @unchecked Sendable {
        var icon = "", variant = "", screenshot = "", unnamed = "", package = ""
    }

    @Test(arguments: TestBackend.available)
    func mediaIsServedImmutableAndOtherBlobsAreNot(backend: TestBackend) async throws {
        let names = Names()
        try await ServerFixture.with(backend, prepare: { runtime, paths in
            try await runtime.importSample(appleItemId: 7, bundleId: "org.example.media", in: paths.folder)
            let app = try await runtime.catalog.setMedia(
                appleItemId: 7, icon: PNG.encode(RGBAImage(width: 300, height: 300, fill: (10, 120, 200, 255))),
                screenshots: [.iphone: [PNG.encode(RGBAImage(width: 400, height: 800, fill: (1, 2, 3, 255)))]], blobs: runtime.blobs)
            let media = try #require(app.media)
            names.icon = try #require(media.icon?.sha256)
            names.variant = try #require(media.icon?.variants.first?.sha256)
            names.screenshot = try #require(media.screenshots(for: .iphone).first?.sha256)
            let staged = try runtime.blobs.stage(data: PNG.encode(RGBAImage(width: 2, height: 2, fill: (0, 0, 0, 255))))
            try runtime.blobs.commit(staged)
            names.unnamed = staged.sha256
            let version = try await runtime.catalog.versions(of: app)[0]
            names.package = try #require(try await runtime.catalog.files(of: version).first?.blobSHA256)
        }) { client in
            for sha256 in [names.icon, names.variant, names.screenshot] {
                let response = try await client.execute(uri: "/media/\(sha256).png", method: .get)
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/png")
                #expect(response.headers[.cacheControl] == "public, max-age=31536000, immutable")
                #expect(response.headers[.eTag] == "\"\(sha256)\"")
                #expect(try PNG.decode(Data(buffer: response.body)).width > 0)
                let cached = try await client.execute(uri: "/media/\(sha256).png", method: .get, headers: [.ifNoneMatch: "\"\(sha256)\""])
                #expect(cached.status == .notModified)
                #expect(cached.body.readableBytes == 0)
                let head = try await client.execute(uri: "/media/\(sha256).png", method: .head)
                #expect(head.status == .ok && head.body.readableBytes == 0)
                #expect(head.headers[.contentLength] == response.headers[.contentLength])
            }
            let icon = try await client.execute(uri: "/apps/7/icon", method: .get)
            #expect(icon.headers[.eTag] == "\"\(names.icon)\"")
            for uri in ["/media/\(names.unnamed).png", "/media/\(names.package).png", "/media/\(names.icon)",
                        "/media/\(names.icon.uppercased()).png", "/media/../sha256.png", "/media/x.png"] {
                #expect(try await client.execute(uri: uri, method: .get).status == .notFound, "\(uri)")
            }
        }
    }

    @Test(arguments: TestBackend.available)
    func theDemoSeedsDrawnMediaForEveryApp(backend: TestBackend) async throws {
        try await ServerFixture.withRuntime(backend, prepare: { runtime, _ in
            _ = try await DemoSeeder(runtime: runtime).seedIfEmpty()
        }) { client, runtime in
            let apps = try await runtime.catalog.apps()
            #expect(apps.count == 4)
            for app in apps {
                let media = try #require(app.media, "\(app.name)")
                let icon = try #require(media.icon)
                #expect(icon.width == icon.height && icon.variants.map(\.width) == [64, 128, 256])
                #expect(app.iconSHA256 == icon.sha256)
                for family in AppMedia.Family.allCases {
                    #expect((2...3).contains(media.screenshots(for: family).count), "\(app.name) \(family)")
                }
                #expect(app.appCategory != nil && app.whatsNew?.isEmpty == false && !app.appDescription.isEmpty)
                let response = try await client.execute(uri: "/media/\(icon.variants[0].sha256).png", method: .get)
                #expect(response.status == .ok)
                let variant = try PNG.decode(Data(buffer: response.body))
                #expect(variant.width == 64)
            }
            // Each app draws in its own colours.
            #expect(Set(apps.compactMap { $0.media?.icon?.sha256 }).count == 4)
            #expect(try await runtime.catalog.featuredApps().map(\.name) == ["Souk Weather", "Souk Sketch"])
        }
    }
}
