import FluentKit
import Foundation

extension CatalogStore {
    /// How many apps have a price (sold on their own), whatever their availability.
    public func pricedAppCount() async throws -> Int {
        try await AppModel.query(on: database.db).filter(\.$pricesJSON != nil).count()
    }
}
