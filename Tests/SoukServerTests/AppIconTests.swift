import Foundation
import Hummingbird
import HummingbirdTesting
import SoukServer
import SoukStore
import SoukTestSupport
import Testing

@Suite struct AppIconTests {
    /// A real 1×1 PNG.
    static let png = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")!

    @Test func servesTheIconWithItsETag() async throws {
        try await ServerFixture.with(.sqlite, prepare: { runtime, paths in
            try await runtime.catalog.createApp(AppModel(appleItemId: 7, bundleId: "org.example.icon", name: "Icon"))
            let file = paths.folder + "/icon.png"
            try Self.png.write(to: URL(fileURLWithPath: file))
            try await runtime.catalog.setIcon(appleItemId: 7, pngAt: file, blobs: runtime.blobs)
        }) { client in
            let response = try await client.execute(uri: "/apps/7/icon", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "image/png")
            #expect(Data(buffer: response.body) == Self.png)
            let etag = try #require(response.headers[.eTag])
            #expect(try await client.execute(uri: "/apps/7/icon", method: .get, headers: [.ifNoneMatch: etag]).status == .notModified)
            #expect(try await client.execute(uri: "/apps/8/icon", method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/apps/x/icon", method: .get).status == .notFound)
        }
    }

    @Test func onlyPNGFilesAreAccepted() async throws {
        try await StoreFixture.with(.sqlite) { store in
            try await store.catalog.createApp(AppModel(appleItemId: 7, bundleId: "org.example.icon", name: "Icon"))
            let file = store.folder.path + "/icon.jpg"
            try Data([0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3, 4]).write(to: URL(fileURLWithPath: file))
            await #expect(throws: CatalogError.invalid("icon \(file) is not a PNG file")) {
                try await store.catalog.setIcon(appleItemId: 7, pngAt: file, blobs: store.blobs)
            }
            #expect(try await store.catalog.app(appleItemId: 7).iconSHA256 == nil)
        }
    }
}
