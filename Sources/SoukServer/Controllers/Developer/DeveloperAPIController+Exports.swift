import Foundation
import Hummingbird
import NIOCore
import SoukApp
import SoukCore

extension DeveloperAPIController {
    /// `GET exports/<purchases|events>?app=&from=&to=&format=csv|jsonl`: the raw export of one of the
    /// organisation's apps (scope `purchases:read`), streamed as the body as its rows are read. The
    /// reach check, the query and the first page of rows come before the answer's head, so a
    /// refusal is a problem document (`400`, `403`, `404`) and an outage a `503`.
    @Sendable func export(_ request: Request, context: DeveloperRequestContext) async throws -> Response {
        let actor = try context.requireActor()
        guard let kind = context.parameters.get("kind").flatMap(RawExportKind.init(rawValue:)) else {
            throw DeveloperOperationError.notFound("There is no such export: purchases or events.")
        }
        // Who may export is known before the query is read, as for every other operation.
        try DeveloperOwnership.authorize(actor, .purchasesRead)
        let query = request.uri.queryParameters
        let asked = try RawExportRequest.parse(kind: kind, app: query["app"].map(String.init), from: query["from"].map(String.init),
                                               to: query["to"].map(String.init), format: query["format"].map(String.init))
        let stream = try await operations.rawExports.open(actor: actor, asked)
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
