import Foundation
import Hummingbird
import SoukApp
import SoukCore
import SoukStore

/// An app's page in either console (`admin-app` or `developer-app`, both around the `console-app`
/// partial): its media, storefront text, package upload and every version with its state, and the
/// forms that change them. Each form calls one operation of `Developers/` as the console's actor
/// and answers with a redirect to the page, or the page again with the operation's refusal. The
/// consoles differ only in what `Console` says: where their pages are, whether the person may
/// change anything, how an upload is worded, and the operator's facts and availability.
struct ConsoleAppPage: Sendable {
    /// The largest package upload (the import itself checks every file against its manifest).
    static var maxPackageUploadBytes: Int { 4 << 30 }
    /// The largest upload of icon and screenshots together.
    static var maxMediaUploadBytes: Int { 96 << 20 }

    enum Console: Sendable {
        /// The operator console; `canEdit` is false for support, who only look.
        case operators(canEdit: Bool)
        /// The developer console; `reviewNewVersions` says an upload waits for the marketplace's review.
        case developers(reviewNewVersions: Bool)

        var appsPath: String {
            switch self {
            case .operators: "/admin/apps"
            case .developers: "/developer/apps"
            }
        }

        var canEdit: Bool {
            switch self {
            case .operators(let canEdit): canEdit
            case .developers: true
            }
        }

        /// The operator imports a package, released at once; a developer uploads one, maybe for review.
        var uploadVerb: (past: String, button: String) {
            switch self {
            case .operators: ("Imported", "Upload and import")
            case .developers: ("Uploaded", "Upload")
            }
        }
    }

    let console: Console
    let services: DeveloperServices

    /// `/admin/apps/<AppleItemID>` or `/developer/apps/<AppleItemID>`.
    func path(_ appleItemId: UInt64) -> String { "\(console.appsPath)/\(appleItemId)" }

    /// What a `?done=` after one of the page's forms says.
    var notices: [String: String] {
        ["details": "Storefront text saved.", "media": "Media saved.", "withdrawn": "Version withdrawn.",
         "reinstated": "Version offered again.", "already": "Nothing changed: that version was already \(console.uploadVerb.past.lowercased())."]
    }

    /// The notice of a page reached after a form: `?done=` (looked up in `extra`, then the page's own),
    /// or `?imported=` naming the version a package upload made and whether it waits for review.
    func notice(_ request: Request, app: AppRecord, extra: [String: String] = [:]) async -> String? {
        let query = request.uri.queryParameters
        if let imported = query["imported"].flatMap({ AppleID.parse(String($0)) }),
           let version = try? await services.catalog.versionRecord(appleItemId: app.appleItemId, appleVersionId: imported) {
            return "\(console.uploadVerb.past) version \(version.shortVersionString) (\(version.bundleVersion), AppleVersionID \(imported))"
                + (version.reviewState == .inReview ? ": it is in review, and offered once the marketplace approves it." : ".")
        }
        return query["done"].flatMap { extra[String($0)] ?? notices[String($0)] }
    }

    /// What a version's state says: review first, then whether it is offered.
    static func versionState(_ version: AppVersionRecord, format: (Date) -> String) -> String {
        switch version.reviewState {
        case .inReview: return "in review"
        case .rejected: return "rejected" + (version.reviewReason.map { ": \($0)" } ?? "")
        case .released:
            return version.withdrawnAt.map { "withdrawn \(format($0))" + (version.withdrawnReason.map { ": \($0)" } ?? "") } ?? "offered"
        }
    }

    /// The page's values: every version (withdrawn, in review and rejected too), newest first.
    func values(app: AppRecord, notice: String?, error: String?) async throws -> AppPageValues {
        let format = WebPage.format
        let media = app.media ?? AppMedia()
        func thumbnail(_ image: AppMedia.Image, alt: String) -> AppPageValues.Thumbnail {
            let small = image.variants.first { $0.width >= 120 } ?? image.variants.last
            return .init(src: "/media/\(small?.sha256 ?? image.sha256).png", alt: alt)
        }
        var operatorFacts: AppPageValues.OperatorFacts?
        if case .operators = console {
            operatorFacts = .init(
                developer: app.developerName, access: app.access.rawValue,
                price: app.pricing.prices.isEmpty ? "Free" : app.pricing.prices.map(\.formatted).joined(separator: ", "),
                available: app.availability == .available,
                takedownReason: app.takedownReason.flatMap { $0.isEmpty ? nil : $0 },  // an empty string would still open its section
                storefrontURL: "/apps/\(app.appleItemId)")
        }
        let reviewNote = if case .developers(let review) = console { review } else { false }
        return AppPageValues(
            id: String(app.appleItemId), name: app.name, bundleId: app.bundleId, availability: app.availability.summary,
            subtitle: app.subtitle, description: app.appDescription, whatsNew: app.whatsNew ?? "",
            categories: AppCategory.allCases.map { .init(slug: $0.slug, name: $0.displayName, selected: $0.slug == app.category) },
            icon: media.icon.map { thumbnail($0, alt: "\(app.name) icon") },
            screenshots: AppMedia.Family.allCases.compactMap { family in
                let images = media.screenshots(for: family)
                guard !images.isEmpty else { return nil }
                return .init(family: family.displayName, images: images.enumerated().map { index, image in
                    thumbnail(image, alt: "\(family.displayName) screenshot \(index + 1)")
                })
            },
            versions: try await services.catalog.allVersions(of: app).map { version in
                .init(version: String(version.appleVersionId), short: version.shortVersionString, build: version.bundleVersion,
                      uploaded: format(version.releaseDate), state: Self.versionState(version, format: format),
                      withdrawn: version.withdrawnAt != nil)
            },
            path: path(app.appleItemId), canEdit: console.canEdit,
            uploadButton: console.uploadVerb.button,
            reviewNote: reviewNote, maxPackageMiB: String(Self.maxPackageUploadBytes >> 20),
            scripts: console.canEdit ? [WebScripts.upload.path] : [],
            notice: notice, error: error, operatorFacts: operatorFacts)
    }

    /// The page's forms for one person on one app; `showAgain` renders the page with a refusal.
    func forms(actor: SoukActor, app: AppRecord, csrfToken: String,
               showAgain: @escaping @Sendable (_ error: String, _ status: HTTPResponse.Status) async throws -> Response) -> Forms {
        Forms(page: self, actor: actor, appleItemId: app.appleItemId, csrfToken: csrfToken, showAgain: showAgain)
    }

    struct Forms {
        let page: ConsoleAppPage
        let actor: SoukActor
        let appleItemId: UInt64
        let csrfToken: String
        let showAgain: @Sendable (_ error: String, _ status: HTTPResponse.Status) async throws -> Response

        private var services: DeveloperServices { page.services }
        private func done(_ what: String) -> Response { WebPage.seeOther(page.path(appleItemId) + "?done=" + what) }

        /// Subtitle, category, description and what's new, through `SaveAppText`.
        func saveText(_ form: FormBody) async throws -> Response {
            do {
                try await SaveAppText(services: services)(actor: actor, appleItemId: appleItemId, .init(
                    subtitle: form["subtitle"] ?? "", category: form["category"] ?? "", description: form["description"] ?? "",
                    whatsNew: form["whatsNew"] ?? ""))
            } catch DeveloperOperationError.invalid(_, let message) {
                return try await showAgain(message, .badRequest)
            }
            return done("details")
        }

        /// Icon and screenshots, as `multipart/form-data`: `icon` (one square PNG), `iphone` and
        /// `ipad` (PNGs, in order; each family sent replaces that family's list), through `SaveAppMedia`.
        func saveMedia(_ request: Request) async throws -> Response {
            let form = try await MultipartForm.read(request, csrfToken: csrfToken, folder: services.workDir,
                                                    maxFileBytes: ConsoleAppPage.maxMediaUploadBytes)
            defer { form.cleanUp() }
            do {
                try await SaveAppMedia(services: services)(actor: actor, appleItemId: appleItemId,
                                                           icon: form.mediaIcon, screenshots: form.mediaScreenshots)
            } catch DeveloperOperationError.invalid(_, let message) {
                return try await showAgain(message, .badRequest)
            }
            return done("media")
        }

        /// A package zip, as `multipart/form-data` field `package`, streamed to a temporary file and
        /// imported by the operation of `souk packages import` (`DeveloperOperations.uploadPackage`);
        /// it must be this app's. Ends on the app's page naming the version.
        func uploadPackage(_ request: Request) async throws -> Response {
            let form = try await MultipartForm.read(request, csrfToken: csrfToken, folder: services.workDir,
                                                    maxFileBytes: ConsoleAppPage.maxPackageUploadBytes)
            defer { form.cleanUp() }
            guard let file = form.files["package"]?.first else { return try await showAgain("Choose a package (.zip) to upload.", .badRequest) }
            let upload: PackageUpload
            do {
                upload = try await services.operations.uploadPackage(actor: actor, appleItemId: appleItemId, appleVersionId: nil,
                                                                     at: file.path, upload: file.filename)
            } catch DeveloperOperationError.invalid(let field, let problem) {
                // "package" is the uploaded file as a whole: name it as the person called it.
                let location = field == "package" ? file.filename : field
                return try await showAgain("Package rejected: \(location): \(problem)", .unprocessableContent)
            }
            guard upload.imported else { return done("already") }
            return WebPage.seeOther(page.path(appleItemId) + "?imported=\(upload.version.appleVersionId)")
        }

        /// Withdraws a version (with an optional reason) or offers it again, through `SetVersionWithdrawn`.
        func setWithdrawn(_ withdrawn: Bool, version: String?, form: FormBody) async throws -> Response {
            guard let versionId = version.flatMap(AppleID.parse) else {
                throw DeveloperOperationError.notFound("This app has no version with this AppleVersionID.")
            }
            do {
                try await SetVersionWithdrawn(services: services)(withdrawn, actor: actor, appleItemId: appleItemId,
                                                                  appleVersionId: versionId, reason: form["reason"] ?? "")
            } catch DeveloperOperationError.invalid(_, let message) {
                return try await showAgain(message, .badRequest)
            }
            return done(withdrawn ? "withdrawn" : "reinstated")
        }
    }
}

/// The Mustache context of an app's page (`console-app`), read by name.
struct AppPageValues: Sendable {
    struct Thumbnail: Sendable {
        let src: String
        let alt: String
    }

    struct Screenshots: Sendable {
        let family: String
        let images: [Thumbnail]
    }

    struct Category: Sendable {
        let slug: String
        let name: String
        let selected: Bool
    }

    struct Version: Sendable {
        let version: String
        let short: String
        let build: String
        let uploaded: String
        let state: String
        let withdrawn: Bool
    }

    /// What only the operator console shows: the app's facts beyond its names, and its availability form.
    struct OperatorFacts: Sendable {
        let developer: String
        let access: String
        let price: String
        let available: Bool
        let takedownReason: String?
        let storefrontURL: String
    }

    let id: String
    let name: String
    let bundleId: String
    let availability: String
    let subtitle: String
    let description: String
    let whatsNew: String
    let categories: [Category]
    let icon: Thumbnail?
    let screenshots: [Screenshots]
    let versions: [Version]
    /// The app's page; its forms post below it.
    let path: String
    let canEdit: Bool
    let uploadButton: String
    /// Whether the upload form says a new version waits for review.
    let reviewNote: Bool
    let maxPackageMiB: String
    let scripts: [String]
    let notice: String?
    let error: String?
    let operatorFacts: OperatorFacts?
}
