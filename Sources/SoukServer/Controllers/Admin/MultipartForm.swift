import Foundation
import SoukStore
import Hummingbird
import MultipartKit
import NIOCore
import SoukApp
import SoukCore

/// A `multipart/form-data` body (the console's uploads: a package, an icon, screenshots), read as
/// it arrives: text fields are kept in memory (each at most `maxFieldBytes`), files are written to
/// temporary files under `folder` (all of them together at most `maxFileBytes`), so memory stays
/// constant whatever the upload's size. The form's `csrf_token` field must come before its first
/// file (browsers send fields in page order, and the console's forms put it first): a body without
/// it is refused before any file byte is written.
struct MultipartForm: Sendable {
    struct File: Sendable {
        /// The name the browser gave (never used as a path).
        var filename: String
        var path: String
        var size: Int
    }

    var fields: [String: String] = [:]
    /// Files per field name, in the order they came; an empty file input sends no file.
    var files: [String: [File]] = [:]

    /// Removes the temporary files.
    func cleanUp() {
        for file in files.values.joined() { try? FileManager.default.removeItem(atPath: file.path) }
    }

    /// The `boundary` parameter of a `multipart/form-data` content type, else nil.
    static func boundary(contentType: String?) -> String? {
        guard let contentType else { return nil }
        let parts = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.first?.lowercased() == "multipart/form-data" else { return nil }
        for part in parts.dropFirst() {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2, pair[0].lowercased() == "boundary" else { continue }
            let value = pair[1].hasPrefix("\"") && pair[1].hasSuffix("\"") && pair[1].count >= 2 ? String(pair[1].dropFirst().dropLast()) : pair[1]
            // RFC 2046: 1 to 70 characters.
            return (1...70).contains(value.count) ? value : nil
        }
        return nil
    }

    /// `name` and `filename` of a `Content-Disposition: form-data; name="…"; filename="…"` header.
    static func disposition(_ value: String) -> (name: String, filename: String?)? {
        var name: String?, filename: String?
        for part in value.split(separator: ";").dropFirst() {
            let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else { continue }
            var text = pair[1]
            if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 { text = String(text.dropFirst().dropLast()) }
            switch pair[0].lowercased() {
            case "name": name = text
            case "filename": filename = text
            default: break
            }
        }
        return name.map { ($0, filename) }
    }

    /// Reads the body of `request`. Throws a `Problem`: 400 (not multipart, malformed), 403 (no or a
    /// wrong `csrf_token` before the first file), 413 (too large). Nothing is left on disk when it throws.
    static func read(_ request: Request, csrfToken: String, folder: String, maxFileBytes: Int,
                     maxFieldBytes: Int = 64 << 10) async throws -> MultipartForm {
        guard let boundary = boundary(contentType: request.headers[.contentType]) else {
            throw Problem(.badRequest, "Send the form as multipart/form-data.")
        }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let reader = Reader(csrfToken: csrfToken, folder: folder, maxFileBytes: maxFileBytes, maxFieldBytes: maxFieldBytes)
        let parser = MultipartParser(boundary: boundary)
        parser.onHeader = { name, value in reader.header(name, value) }
        parser.onBody = { buffer in reader.body(&buffer) }
        parser.onPartComplete = { reader.partComplete() }
        do {
            for try await chunk in request.body {
                do {
                    try parser.execute(chunk)
                } catch {
                    throw Problem(.badRequest, "The form's body is not valid multipart/form-data.")
                }
                if let failure = reader.failure { throw failure }
            }
            guard reader.finished else { throw Problem(.badRequest, "The form's body ended early.") }
            guard let field = reader.form.fields["csrf_token"], ConstantTime.equal(field, csrfToken) else {
                throw Problem(.forbidden, "The form expired. Reload the page and try again.")
            }
            return reader.form
        } catch {
            reader.abandon()
            throw error
        }
    }

    /// The parser's callbacks' state (one request, one task: not shared).
    private final class Reader {
        let csrfToken: String
        let folder: String
        let maxFileBytes: Int
        let maxFieldBytes: Int
        var form = MultipartForm()
        var failure: Problem?
        var finished = false
        private var headers: [String: String] = [:]
        private var field: (name: String, bytes: [UInt8])?
        private var file: (name: String, file: File, handle: FileHandle)?
        private var fileBytes = 0
        private var parts = 0

        init(csrfToken: String, folder: String, maxFileBytes: Int, maxFieldBytes: Int) {
            self.csrfToken = csrfToken
            self.folder = folder
            self.maxFileBytes = maxFileBytes
            self.maxFieldBytes = maxFieldBytes
        }

        func header(_ name: String, _ value: String) {
            headers[name.lowercased()] = value
        }

        func body(_ buffer: inout ByteBuffer) {
            guard failure == nil else { return }
            if field == nil, file == nil { startPart() }
            guard failure == nil else { return }
            if var current = field {
                guard current.bytes.count + buffer.readableBytes <= maxFieldBytes else {
                    return fail(Problem(.contentTooLarge, "The field \(current.name) is longer than \(maxFieldBytes) bytes."))
                }
                current.bytes += buffer.readableBytesView
                field = current
            } else if let current = file {
                fileBytes += buffer.readableBytes
                guard fileBytes <= maxFileBytes else {
                    return fail(Problem(.contentTooLarge, "The upload is larger than \(maxFileBytes / 1_048_576) MiB."))
                }
                do {
                    try current.handle.write(contentsOf: buffer.readableBytesView)
                    file?.file.size += buffer.readableBytes
                } catch {
                    fail(Problem(.serviceUnavailable, "The upload could not be stored (\(error.localizedDescription)). Try again."))
                }
            }
        }

        func partComplete() {
            guard failure == nil else { return }
            if field == nil, file == nil { startPart() }  // an empty part: no body callback came
            if let done = field {
                form.fields[done.name] = String(decoding: done.bytes, as: UTF8.self)
            } else if let done = file {
                try? done.handle.close()
                // A file input left empty sends a part with no filename and no bytes: not a file.
                if done.file.filename.isEmpty, done.file.size == 0 {
                    try? FileManager.default.removeItem(atPath: done.file.path)
                } else {
                    form.files[done.name, default: []].append(done.file)
                }
            }
            field = nil
            file = nil
            headers = [:]
            finished = true
        }

        private func startPart() {
            finished = false
            parts += 1
            guard parts <= 64 else { return fail(Problem(.badRequest, "The form has too many parts.")) }
            guard let disposition = headers["content-disposition"].flatMap(MultipartForm.disposition) else {
                return fail(Problem(.badRequest, "A part of the form has no Content-Disposition name."))
            }
            guard let filename = disposition.filename else {
                field = (disposition.name, [])
                return
            }
            guard let token = form.fields["csrf_token"], ConstantTime.equal(token, csrfToken) else {
                return fail(Problem(.forbidden, "The form expired. Reload the page and try again."))
            }
            let path = WorkOwner.name(prefix: "upload-", in: folder)
            guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
                return fail(Problem(.serviceUnavailable, "The upload could not be stored. Try again."))
            }
            file = (disposition.name, File(filename: filename, path: path, size: 0), handle)
        }

        private func fail(_ problem: Problem) {
            if failure == nil { failure = problem }
        }

        /// Closes and removes everything written.
        func abandon() {
            if let current = file {
                try? current.handle.close()
                try? FileManager.default.removeItem(atPath: current.file.path)
            }
            file = nil
            form.cleanUp()
        }
    }
}

extension MultipartForm {
    /// The `icon` field's image, for `SaveAppMedia`.
    var mediaIcon: SaveAppMedia.Image? {
        files["icon"]?.first.map { SaveAppMedia.Image(path: $0.path, name: $0.filename) }
    }

    /// The screenshot fields' images (`iphone`, `ipad`), in the order they came, for `SaveAppMedia`.
    var mediaScreenshots: [AppMedia.Family: [SaveAppMedia.Image]] {
        var screenshots: [AppMedia.Family: [SaveAppMedia.Image]] = [:]
        for family in AppMedia.Family.allCases {
            screenshots[family] = files[family.rawValue]?.map { SaveAppMedia.Image(path: $0.path, name: $0.filename) }
        }
        return screenshots
    }
}
