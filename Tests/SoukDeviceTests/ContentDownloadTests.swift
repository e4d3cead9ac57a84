import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import SoukCore
@testable import SoukDevice
import Synchronization
import Testing

/// `souk-device content download` against a server that speaks Souk's hosted-content API (manifest
/// with sizes and SHA-256, the zip with `Range`), bearer required: every download state of StoreKit's “In-App Purchasing” guide.
@Suite struct ContentDownloadTests {
    final class ContentServer: Sendable {
        let zip: [UInt8]
        let digest: String
        let ranges = Mutex<[String?]>([])

        init(size: Int, wrongDigest: Bool = false) {
            zip = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) }
            digest = wrongDigest ? String(repeating: "0", count: 64) : SHA256.hash(data: Data(zip)).map { String(format: "%02x", $0) }.joined()
        }

        var router: Router<BasicRequestContext> {
            let router = Router()
            router.get("commerce/app/content/book/manifest.json") { request, _ -> Response in
                guard request.headers[.authorization] == "Bearer good" else { return Response(status: .forbidden) }
                let base = "http://\(request.head.authority ?? "127.0.0.1")"
                let body = #"{"app":"app","productId":"book","versions":[{"contentVersion":"1.0","size":\#(self.zip.count),"sha256":"\#(self.digest)","url":"\#(base)/commerce/app/content/book/1.0"}]}"#
                return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: body)))
            }
            router.get("commerce/app/content/book/1.0") { request, _ -> Response in
                guard request.headers[.authorization] == "Bearer good" else { return Response(status: .forbidden) }
                let range = request.headers[.range]
                self.ranges.withLock { $0.append(range) }
                guard let range, let start = Int(range.dropFirst(6).split(separator: "-").first ?? "") else {
                    return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: self.zip)))
                }
                return Response(status: .partialContent, headers: [.contentRange: "bytes \(start)-\(self.zip.count - 1)/\(self.zip.count)"],
                                body: .init(byteBuffer: ByteBuffer(bytes: self.zip[start...])))
            }
            return router
        }
    }

    static func states(_ folder: String) throws -> ContentDownload.Record {
        try JSONDecoder().decode(ContentDownload.Record.self, from: Data(contentsOf: URL(fileURLWithPath: folder + "/content/book-1.0.json")))
    }

    @Test func anInterruptedDownloadPausesResumesWithRangeAndIsVerified() async throws {
        let server = ContentServer(size: 3 * 1024 * 1024)
        let folder = NSTemporaryDirectory() + "souk-content-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let said = Mutex<[String]>([])
        try await Application(router: server.router, configuration: .init(address: .hostname("127.0.0.1", port: 0))).test(.live) { client in
            let url = "http://127.0.0.1:\(try #require(client.port))/commerce/app/content/book"
            let http = DeviceHTTP(verbose: false)
            let downloads = ContentDownload(http: http, stateFolder: folder + "/state", say: { line in said.withLock { $0.append(line) } })
            // Interrupted a third of the way: paused, with what is on disk kept.
            let first = try await downloads.run(url, token: "good", out: folder + "/out", stopAfter: 1024 * 1024)
            #expect(first.path == nil && first.record.state == .paused && first.record.received >= 1024 * 1024)
            #expect(try Self.states(folder + "/state").state == .paused)
            // The next run resumes where it stopped and checks the SHA-256.
            let second = try await downloads.run(url + "/1.0", token: "good", out: folder + "/out")
            let path = try #require(second.path)
            #expect(second.record.state == .finished)
            #expect(Array(try Data(contentsOf: URL(fileURLWithPath: path))) == server.zip)
            let ranges = server.ranges.withLock { $0 }
            #expect(ranges.first == .some(nil) && ranges.last??.hasPrefix("bytes=") == true)
            // Not entitled: refused, nothing downloaded.
            await #expect(throws: DeviceError.self) { try await downloads.run(url, token: "other", out: folder + "/out") }
            await http.shutdown()
        }
        let lines = said.withLock { $0 }
        for state in ["waiting", "active", "paused", "finished"] {
            #expect(lines.contains { $0.contains(": \(state)") }, "\(state) was never said")
        }
        #expect(lines.contains { $0.contains("active") && $0.contains("%") })
    }

    @Test func aWrongDigestFailsAndACancelDropsThePart() async throws {
        let server = ContentServer(size: 256 * 1024, wrongDigest: true)
        let folder = NSTemporaryDirectory() + "souk-content-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try await Application(router: server.router, configuration: .init(address: .hostname("127.0.0.1", port: 0))).test(.live) { client in
            let url = "http://127.0.0.1:\(try #require(client.port))/commerce/app/content/book"
            let http = DeviceHTTP(verbose: false)
            let downloads = ContentDownload(http: http, stateFolder: folder + "/state", say: { _ in })
            await #expect(throws: DeviceError.self) { try await downloads.run(url, token: "good", out: folder + "/out") }
            #expect(try Self.states(folder + "/state").state == .failed)
            #expect(!FileManager.default.fileExists(atPath: folder + "/out/book-1.0.zip"))
            // A paused download, cancelled: its part is gone.
            _ = try await downloads.run(url, token: "good", out: folder + "/out", stopAfter: 64 * 1024)
            #expect(FileManager.default.fileExists(atPath: folder + "/state/content/book-1.0.part"))
            #expect(try downloads.cancel(url, version: nil))
            #expect(!FileManager.default.fileExists(atPath: folder + "/state/content/book-1.0.part"))
            #expect(try Self.states(folder + "/state").state == .cancelled)
            await http.shutdown()
        }
    }
}
