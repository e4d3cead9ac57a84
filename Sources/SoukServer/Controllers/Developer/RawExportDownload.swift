import Foundation
import Hummingbird
import NIOCore
import SoukApp
import SoukCore

/// The raw export of an app's purchases or events as a download, streamed as its rows are read
/// (docs/metrics.md, "Exports"): one answer for the developer API and both consoles. The reach
/// check, the query and the first page of rows come before the answer's head, so a refusal is an
/// error answer (`400`, `403`, `404`) and an outage a `503`, never a cut-off file.
enum RawExportDownload {
    static func response(actor: SoukActor, kind: String?, request: Request, exports: RawExports) async throws -> Response {
        guard let kind = kind.flatMap(RawExportKind.init(rawValue:)) else {
            throw DeveloperOperationError.notFound("There is no such export: purchases or events.")
        }
        // Who may export is known before the query is read, as for every other operation.
        try DeveloperOwnership.authorize(actor, .purchasesRead)
        let query = request.uri.queryParameters
        let asked = try RawExportRequest.parse(kind: kind, app: query["app"].map(String.init), from: query["from"].map(String.init),
                                               to: query["to"].map(String.init), format: query["format"].map(String.init))
        let stream = try await exports.open(actor: actor, asked)
        var headers: HTTPFields = [:]
        headers[.contentType] = asked.format.contentType
        headers[.contentDisposition] = "attachment; filename=\"\(asked.fileName)\""
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            try await stream.write { text in try await writer.write(ByteBuffer(string: text)) }
            try await writer.finish(nil)
        })
    }
}
