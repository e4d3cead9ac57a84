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
    /// An iPhone variant named `publicId` whose size and chunk digests are those of `file`.
    static func variant(_ publicId: String, of file: [UInt8], chunk: Int) -> PackageManifest.Asset {
        let digests = stride(from: 0, to: file.count, by: chunk).map { start in
            Array(SHA256.hash(data: file[start..<min(start + chunk, file.count)]))
        }
        return PackageManifest.Asset(kind: .variant, publicId: publicId, assetPath: "variant/\(publicId).ipa",
                                     installTargets: [.init(device: "iphone", os: "ios")], expectedSize: Int64(file.count),
                                     chunkDigests: .init(chunkSize: chunk, digests: digests))
    }

    /// A fresh device in `store` downloads `variant` from the test server on `port`.
    static func download(_ variant: PackageManifest.Asset, into store: DeviceStore, port: Int) async throws {
        let http = DeviceHTTP(verbose: false)
        let device = Device(store: store, state: try store.load(platform: nil, osVersion: nil, model: nil), http: http, output: DeviceOutput(quiet: true))
        do {
            try await device.download(base: "http://127.0.0.1:\(port)/", variant: variant)
        } catch {
            await http.shutdown()
            throw error
        }
        await http.shutdown()
    }

    @Test func anInterruptedDownloadResumesWithRangeAndIsVerified() async throws {
        let server = FlakyFileServer(size: 300_000)
        let variant = Self.variant("app", of: server.file, chunk: 65_536)
        try await Application(router: server.router, configuration: .init(address: .hostname("127.0.0.1", port: 0))).test(.live) { client in
            let port = try #require(client.port)
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString).path
            let store = DeviceStore(folder: folder)
            try await Self.download(variant, into: store, port: port)
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

/// A file server that sends the first half of a large variant, then waits until the device's part
/// file holds a good share of it before sending the rest: it can only finish its wait when the
/// device writes bytes to disk while the answer is still in flight (a device that gathered the
/// body in memory first would leave the file empty), and records what it saw.
final class StreamingFileServer: Sendable {
    static let size = 64 << 20
    let file: [UInt8]
    let partPath: String
    /// The part file's size once the first half was sent (nil: the answer has not got that far).
    let seenWhileInFlight = Mutex<Int64?>(nil)

    init(partPath: String) {
        // 64 MiB from a block whose length is prime to the chunk size, so no two chunk digests agree.
        let block = (0..<1_000_003).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 17) }
        var file: [UInt8] = []
        file.reserveCapacity(Self.size)
        while file.count < Self.size { file.append(contentsOf: block.prefix(Self.size - file.count)) }
        self.file = file
        self.partPath = partPath
    }

    func partSize() -> Int64 {
        (try? FileManager.default.attributesOfItem(atPath: partPath)[.size] as? Int64) ?? 0
    }

    var router: Router<BasicRequestContext> {
        let router = Router()
        router.get("variant/big.ipa") { _, _ -> Response in
            Response(status: .ok, headers: [.contentLength: String(self.file.count)], body: ResponseBody { writer in
                let half = self.file.count / 2
                for start in stride(from: 0, to: half, by: 1 << 20) {
                    try await writer.write(ByteBuffer(bytes: self.file[start..<min(start + (1 << 20), half)]))
                }
                // Give the device time to write a quarter of the file; give up after a while rather than hang.
                var polls = 0
                while self.partSize() < Int64(self.file.count / 4), polls < 3000 {
                    try await Task.sleep(for: .milliseconds(10))
                    polls += 1
                }
                self.seenWhileInFlight.withLock { $0 = self.partSize() }
                for start in stride(from: half, to: self.file.count, by: 1 << 20) {
                    try await writer.write(ByteBuffer(bytes: self.file[start..<min(start + (1 << 20), self.file.count)]))
                }
                try await writer.finish(nil)
            })
        }
        return router
    }
}

extension DownloadTests {
    @Test func aLargeVariantStreamsToDiskWhileItArrivesAndIsVerified() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString).path
        let store = DeviceStore(folder: folder)
        let server = StreamingFileServer(partPath: store.downloads + "/big.part")
        let variant = Self.variant("big", of: server.file, chunk: 4 << 20)
        try await Application(router: server.router, configuration: .init(address: .hostname("127.0.0.1", port: 0))).test(.live) { client in
            let port = try #require(client.port)
            try await Self.download(variant, into: store, port: port)
        }
        // At least a quarter of the file was on disk before the server sent its second half.
        let seen = try #require(server.seenWhileInFlight.withLock { $0 })
        #expect(seen >= Int64(server.file.count / 4))
        #expect(seen < Int64(server.file.count))
        let installed = store.apps + "/big.ipa"
        #expect((try FileManager.default.attributesOfItem(atPath: installed)[.size] as? Int64) == Int64(server.file.count))
        #expect(!FileManager.default.fileExists(atPath: store.downloads + "/big.part"))
        try? FileManager.default.removeItem(atPath: folder)
    }

    @Test func aVariantWithMoreBytesThanTheManifestSaysIsRefused() async throws {
        let server = FlakyFileServer(size: 100_000)
        let variant = PackageManifest.Asset(kind: .variant, publicId: "long", assetPath: "variant/app.ipa", installTargets: [],
                                            expectedSize: 1000, chunkDigests: nil)
        try await Application(router: server.router, configuration: .init(address: .hostname("127.0.0.1", port: 0))).test(.live) { client in
            let port = try #require(client.port)
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString).path
            let store = DeviceStore(folder: folder)
            let http = DeviceHTTP(verbose: false)
            let device = Device(store: store, state: try store.load(platform: nil, osVersion: nil, model: nil), http: http, output: DeviceOutput(quiet: true))
            let name = await faultName { try await device.download(base: "http://127.0.0.1:\(port)/", variant: variant) }
            await http.shutdown()
            #expect(name == .invalidAlternativeDistributionPackageSignature)
            #expect(!FileManager.default.fileExists(atPath: store.downloads + "/long.part"))
        }
    }
}
