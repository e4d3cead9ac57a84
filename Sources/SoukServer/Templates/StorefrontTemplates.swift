/// The storefront pages' templates (merged into `Pages`; names must not clash with other groups').
/// Each starts with `{{> start}}` (or `{{> start-plain}}`) and ends with `{{> end}}`.
enum StorefrontTemplates {
    static let all: [String: String] = [:]
}
