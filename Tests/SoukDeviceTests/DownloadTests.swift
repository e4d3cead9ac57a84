import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import SoukCore
@testable import SoukDevice
import Synchronization
import Testing

/// A file server that breaks the first download off halfway (the connection drops), then serves
/// ranges properly: what a device meets on a bad network.
final class FlakyFileServer: Sendable {
    let file: [UInt8]
    let requests = Mutex<[String?]>([])

    init(size: Int) {
        file = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
    }

    struct Dropped: Error {}

    var router: Router<BasicRequestContext> {
        let router = Router()
        router.get("variant/app.ipa") { request, _ -> Response in
            let range = request.headers[.range]
            let first = self.requests.withLock { requests in
                requests.append(range)
                return requests.count == 1
            }
            if first {
                // Promise the whole file, send half, then fail: the client sees the connection end early.
                let half = self.file.count / 2
                return Response(status: .ok, headers: [.contentLength: String(self.file.count)], body: ResponseBody { writer in
                    try await writer.write(ByteBuffer(bytes: self.file[0..<half]))
                    throw Dropped()
                })
            }
            guard let range, range.hasPrefix("bytes="), let start = Int(range.dropFirst(6).split(separator: "-").first ?? "") else {
                return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: self.file)))
            }
            return Response(status: .partialContent,
                            headers: [.contentRange: "bytes \(start)-\(self.file.count - 1)/\(self.file.count)"],
                            body: .init(byteBuffer: ByteBuffer(bytes: self.file[start...])))
        }
        return router
    }
}

@Suite struct DownloadTests {
    @Test func anInterruptedDownloadResumesWithRangeAndIsVerified() async throws {
        let server = FlakyFileServer(size: 300_000)
        let chunk = 65_536
        let digests = stride(from: 0, to: server.file.count, by: chunk).map { start in
            Array(SHA256.hash(data: server.file[start..<min(start + chunk, server.file.count)]))
        }
        let variant = PackageManifest.Asset(kind: .variant, publicId: "app", assetPath: "variant/app.ipa",
                                            installTargets: [.init(device: "iphone", os: "ios")], expectedSize: Int64(server.file.count),
                                            chunkDigests: .init(chunkSize: chunk, digests: digests))
        try await Application(router: server.router, configuration: .init(address: .hostname("127.0.0.1", port: 0))).test(.live) { client in
            let port = try #require(client.port)
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString).path
            let store = DeviceStore(folder: folder)
            let http = DeviceHTTP(verbose: false)
            let device = Device(store: store, state: try store.load(platform: nil, osVersion: nil, model: nil), http: http, output: DeviceOutput(quiet: true))
            do {
                try await device.download(base: "http://127.0.0.1:\(port)/", variant: variant)
            } catch {
                await http.shutdown()
                throw error
            }
            await http.shutdown()
            let requests = server.requests.withLock { $0 }
            #expect(requests.count == 2)
            #expect(requests.first == .some(nil))
            let resumedFrom = try #require(requests.last??.dropFirst(6).split(separator: "-").first.flatMap { Int($0) })
            #expect(resumedFrom > 0 && resumedFrom < server.file.count)
            let installed = try Data(contentsOf: URL(fileURLWithPath: folder + "/apps/app.ipa"))
            #expect(Array(installed) == server.file)
        }
    }

    @Test func aCorruptedFileFailsItsDigestsAndIsDiscarded() async throws {
        let server = FlakyFileServer(size: 100_000)
        let variant = PackageManifest.Asset(kind: .variant, publicId: "bad", assetPath: "variant/app.ipa", installTargets: [],
                                            expectedSize: Int64(server.file.count),
                                            chunkDigests: .init(chunkSize: 100_000, digests: [Array(SHA256.hash(data: Data([1, 2, 3])))]))
        try await Application(router: server.router, configuration: .init(address: .hostname("127.0.0.1", port: 0))).test(.live) { client in
            let port = try #require(client.port)
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString).path
            let store = DeviceStore(folder: folder)
            let http = DeviceHTTP(verbose: false)
            let device = Device(store: store, state: try store.load(platform: nil, osVersion: nil, model: nil), http: http, output: DeviceOutput(quiet: true))
            var name: DeviceError.Name?
            do {
                try await device.download(base: "http://127.0.0.1:\(port)/", variant: variant)
            } catch let error as DeviceError {
                name = error.name
            }
            await http.shutdown()
            #expect(name == .invalidAlternativeDistributionPackageSignature)
            #expect(!FileManager.default.fileExists(atPath: store.downloads + "/bad.part"))
        }
    }
}
