/// The account pages' templates (merged into `Pages`; names must not clash with other groups').
/// Each starts with `{{> start}}` (or `{{> start-plain}}`) and ends with `{{> end}}`.
enum AccountTemplates {
    static let all: [String: String] = [:]
}
