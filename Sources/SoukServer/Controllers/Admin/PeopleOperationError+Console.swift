import Hummingbird
import SoukApp

/// How the console answers what `PeopleOperations` refused: a refusal is 403 and an unknown grant
/// 404 (problem JSON, as every console refusal); input the operation refused is the error line of the
/// person's page, answered 400.
extension AdminController {
    static func problem(_ error: PeopleOperationError) -> Problem {
        switch error {
        case .refused(let reason): Problem(.forbidden, reason)
        case .noSuchGrant: Problem(.notFound, "This person has no such grant.")
        case .noCatalog, .invalid: Problem(.badRequest, pageError(error) ?? "")
        }
    }

    /// The person page's error line for input the operation refused; nil for a refusal or an unknown
    /// grant, which are not shown on the page.
    static func pageError(_ error: PeopleOperationError) -> String? {
        switch error {
        case .invalid(let message): message
        case .noCatalog(let app): "\(app.isEmpty ? "That app" : app) has no in-app catalog."
        case .refused, .noSuchGrant: nil
        }
    }
}
