import SoukCore

extension CommerceCatalogState {
    /// The retired product ids as a catalog page lists them, or nil when there are none (Mustache
    /// treats an empty string as present, which printed "Retired (…): ." on every new catalog).
    var retiredIdsForPage: String? {
        retired.isEmpty ? nil : retired.map(\.id).joined(separator: ", ")
    }
}
