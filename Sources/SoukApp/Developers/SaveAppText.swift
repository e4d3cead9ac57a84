import Foundation
import SoukCore
import SoukStore

/// Sets an app's storefront text (subtitle, category, description, what's new) for an actor that
/// reaches the app (`DeveloperOwnership`), with the operator console's limits; writes `app.details`
/// to the audit log when something changed.
package struct SaveAppText: Sendable {
    package let services: DeveloperServices

    package init(services: DeveloperServices) { self.services = services }

    package struct Text: Sendable {
        package var subtitle: String
        /// A category's slug; empty: none.
        package var category: String
        package var description: String
        package var whatsNew: String

        package init(subtitle: String, category: String, description: String, whatsNew: String) {
            self.subtitle = subtitle
            self.category = category
            self.description = description
            self.whatsNew = whatsNew
        }
    }

    @discardableResult
    package func callAsFunction(actor: SoukActor, appleItemId: UInt64, _ text: Text) async throws -> AppRecord {
        let app = try await services.ownership.app(appleItemId, for: actor, scope: .packagesWrite)
        let category = text.category.isEmpty ? nil : AppCategory(slug: text.category)
        guard text.category.isEmpty || category != nil else { throw DeveloperOperationError.invalid(field: "category", "Choose a category from the list.") }
        guard text.subtitle.count <= 80, text.description.count <= 8000, text.whatsNew.count <= 4000 else {
            throw DeveloperOperationError.invalid(field: "text", "Too long: a subtitle has at most 80 characters, a description 8,000, what's new 4,000.")
        }
        let before = app.auditDetailFields
        let after = try await services.catalog.setMedia(appleItemId: appleItemId, subtitle: text.subtitle, category: category,
                                                        description: text.description, whatsNew: text.whatsNew, blobs: services.blobs)
        if after.auditDetailFields != before {
            try await services.audit.record(actor: actor.auditName, action: .appDetails, target: "app:\(appleItemId)",
                                            before: before, after: after.auditDetailFields)
        }
        return after
    }
}
