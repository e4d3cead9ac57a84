import Foundation
import Hummingbird
import SoukApp
import SoukCore

extension DeveloperAPIController {
    /// `GET exports/<purchases|events>?app=&from=&to=&format=csv|jsonl`: the raw export of one of the
    /// organisation's apps (scope `purchases:read`), streamed (`RawExportDownload`).
    @Sendable func export(_ request: Request, context: DeveloperRequestContext) async throws -> Response {
        try await RawExportDownload.response(actor: try context.requireActor(), kind: context.parameters.get("kind"),
                                             request: request, exports: operations.rawExports)
    }
}
