import Foundation
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// `/admin/review`: versions developers uploaded, waiting for the operator's release or rejection
/// (`VersionReview`, docs/developers.md "Review"). Support staff see the queue and each version;
/// only operators approve or reject.
extension AdminController {
    func addReviewRoutes(to routes: ConsoleRoutes<Context>) {
        routes.staff.get("review", use: reviewQueue)
        routes.staff.get("review/:item/:version", use: reviewVersion)
        routes.operators.post("review/:item/:version/approve", use: approveVersion)
        routes.operators.post("review/:item/:version/reject", use: rejectVersion)
    }

    /// The actor a console session acts as in the operations layer.
    static func staffActor(_ session: ConsoleSession) -> SoukActor {
        .staff(accountID: session.accountID, email: session.account.email, role: session.role)
    }

    var versionReview: VersionReview { services.versionReview }

    /// `/admin/review`: the queue, the longest-waiting first.
    @Sendable func reviewQueue(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireConsoleSession()
        let queue = try await versionReview.queue(actor: Self.staffActor(session))
        let notice = request.uri.queryParameters["done"].flatMap { ["approved": "Version released.", "rejected": "Version rejected."][String($0)] }
        let values = ReviewQueueValues(versions: queue.map { version in
            .init(app: version.appName, version: String(version.appleVersionId), short: version.shortVersionString, build: version.bundleVersion,
                  developer: version.developerName ?? "the marketplace", uploaded: version.uploadedAt.map(WebPage.format) ?? "-",
                  href: "/admin/review/\(version.appleItemId)/\(version.appleVersionId)")
        }, notice: notice)
        return try await render(.adminReviewQueue, session: session, title: "Review", page: values)
    }

    /// `/admin/review/<AppleItemID>/<AppleVersionID>`: the version's facts and what changed since the previous release.
    @Sendable func reviewVersion(_ request: Request, context: Context) async throws -> Response {
        let session = try context.requireConsoleSession()
        return try await reviewPage(session: session, context: context, error: nil, status: .ok)
    }

    @Sendable func approveVersion(_ request: Request, context: Context) async throws -> Response {
        let (session, _) = try await consoleForm(request, context: context)
        let (item, version) = try reviewedIDs(context)
        do {
            try await versionReview.approve(actor: Self.staffActor(session), appleItemId: item, appleVersionId: version)
        } catch let failure as VersionReview.Failure {
            return try await reviewRefusal(failure, session: session, context: context)
        }
        return WebPage.seeOther("/admin/review?done=approved")
    }

    @Sendable func rejectVersion(_ request: Request, context: Context) async throws -> Response {
        let (session, form) = try await consoleForm(request, context: context)
        let (item, version) = try reviewedIDs(context)
        do {
            try await versionReview.reject(actor: Self.staffActor(session), appleItemId: item, appleVersionId: version, reason: form["reason"] ?? "")
        } catch let failure as VersionReview.Failure {
            return try await reviewRefusal(failure, session: session, context: context)
        }
        return WebPage.seeOther("/admin/review?done=rejected")
    }

    private func reviewRefusal(_ failure: VersionReview.Failure, session: ConsoleSession, context: Context) async throws -> Response {
        switch failure {
        case .notFound: throw Problem(.notFound, "No app has a version with these ids.")
        case .notPermitted: throw Problem(.forbidden, failure.description.prefix(1).uppercased() + failure.description.dropFirst() + ".")
        case .notInReview: return try await reviewPage(session: session, context: context, error: "Not changed: \(failure.description).", status: .conflict)
        case .invalidReason: return try await reviewPage(session: session, context: context, error: "Not rejected: \(failure.description).", status: .badRequest)
        }
    }

    private func reviewedIDs(_ context: Context) throws -> (UInt64, UInt64) {
        guard let item = context.parameters.get("item").flatMap(AppleID.parse),
              let version = context.parameters.get("version").flatMap(AppleID.parse) else {
            throw Problem(.notFound, "No app has a version with these ids.")
        }
        return (item, version)
    }

    private func reviewPage(session: ConsoleSession, context: Context, error: String?, status: HTTPResponse.Status) async throws -> Response {
        let (item, version) = try reviewedIDs(context)
        let comparison: VersionReview.Comparison
        do {
            comparison = try await versionReview.comparison(actor: Self.staffActor(session), appleItemId: item, appleVersionId: version)
        } catch VersionReview.Failure.notFound {
            throw Problem(.notFound, "No app has a version with these ids.")
        }
        let reviewed = comparison.version
        // Every fact is shown (a wide context): the reviewer reads the whole list with its changes marked.
        let diff = comparison.previous.map { TextDiff.lines(from: $0.lines.joined(separator: "\n"), to: reviewed.lines.joined(separator: "\n"), context: 50) ?? [] }
            ?? reviewed.lines.map { TextDiff.Line(kind: .added, text: $0) }
        let path = "/admin/review/\(item)/\(version)"
        let facts = [
            ("Version", "\(reviewed.shortVersionString) (bundle version \(reviewed.bundleVersion))"),
            ("Platforms", reviewed.platforms.sorted().joined(separator: ", ")),
            ("Minimum OS", reviewed.minimumOS.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")),
            ("Capabilities", reviewed.capabilities.isEmpty ? "none" : reviewed.capabilities.sorted().joined(separator: ", ")),
            ("Size", "\(reviewed.size) bytes"),
            ("Organisation", reviewed.developerName.map { "\($0) (\(reviewed.developerID ?? ""))" } ?? "the marketplace"),
            ("Uploaded", reviewed.uploadedAt.map(WebPage.format) ?? "-"),
        ]
        let values = ReviewVersionValues(
            app: reviewed.appName, short: reviewed.shortVersionString, item: String(item), version: String(version),
            state: reviewed.reviewState.rawValue.replacingOccurrences(of: "_", with: " "), inReview: reviewed.reviewState == .inReview,
            facts: facts.map { ReviewVersionValues.Fact(name: $0.0, value: $0.1) },
            diff: diff.map(DiffLineValues.init),
            approveAction: path + "/approve", rejectAction: path + "/reject", maxReason: String(VersionReview.maxReasonLength),
            error: error, reason: reviewed.reviewReason,
            previous: comparison.previous.map { "\($0.shortVersionString) (\($0.bundleVersion), AppleVersionID \($0.appleVersionId))" })
        return try await render(.adminReviewVersion, session: session, title: "Review of \(reviewed.appName) \(reviewed.shortVersionString)",
                                page: values, status: status)
    }
}
