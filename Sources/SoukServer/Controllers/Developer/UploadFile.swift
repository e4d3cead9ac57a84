import Foundation
import Hummingbird
import NIOCore
import SoukApp
import SoukStore

/// A request body streamed into a work file, never held in memory (a package is gigabytes).
enum UploadFile {
    /// Writes `body` to a fresh file in `folder` and answers its path; past `maxBytes`, or when the
    /// body cannot be read to its end, the file is removed and the request refused.
    static func stream(_ body: RequestBody, into folder: String, maxBytes: Int) async throws -> String {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = WorkOwner.name(prefix: "upload-", in: folder)
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw Problem(.serviceUnavailable, "The upload could not be stored. Try again.", retryAfter: 5)
        }
        do {
            var written = 0
            var chunks = body.makeAsyncIterator()
            while true {
                let chunk: ByteBuffer?
                do {
                    chunk = try await chunks.next()
                } catch let problem as Problem {
                    throw problem
                } catch {
                    throw Problem(.badRequest, "The request body could not be read to its end.")
                }
                guard let buffer = chunk else { break }
                written += buffer.readableBytes
                guard written <= maxBytes else { throw Problem(.contentTooLarge, "The package is larger than \(maxBytes) bytes.") }
                do {
                    try handle.write(contentsOf: buffer.readableBytesView)
                } catch {
                    // A full disk is this server's trouble, not the upload's.
                    throw Problem(.serviceUnavailable, "The upload could not be stored. Try again.", retryAfter: 5)
                }
            }
            try handle.close()
            return path
        } catch {
            try? handle.close()
            try? FileManager.default.removeItem(atPath: path)
            throw error
        }
    }
}
