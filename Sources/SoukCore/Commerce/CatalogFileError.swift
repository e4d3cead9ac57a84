/// Why a catalog file (or a catalog value) cannot be applied: the JSON path of the offending value
/// (`products[2].period`, `entitlements[0].id`, `products[2].prices[1].currency`) and what is wrong
/// with it. Nothing is applied when there is one.
public typealias CatalogFileError = JSONPathError
