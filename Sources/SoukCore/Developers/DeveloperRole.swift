import Foundation

/// A member's place in a developer organisation (docs/developers.md, "Organisations"): an `owner`
/// also manages the organisation's members and API keys; a `member` works on its apps.
public enum DeveloperRole: String, Sendable, CaseIterable, Codable {
    case owner
    case member
}

/// What a developer API key may do (docs/developers.md, "API keys"). A key holds a set of scopes;
/// a request outside them is refused with 403.
public enum DeveloperScope: String, Sendable, CaseIterable, Codable, Comparable {
    case packagesWrite = "packages:write"
    case catalogWrite = "catalog:write"
    case purchasesRead = "purchases:read"
    case grantsWrite = "grants:write"
    case webhooksWrite = "webhooks:write"
    case metricsRead = "metrics:read"

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Parses `packages:write,catalog:write`; nil when any entry is unknown or the list is empty.
    public static func parseList(_ text: String) -> Set<DeveloperScope>? {
        let names = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !names.isEmpty else { return nil }
        var scopes = Set<DeveloperScope>()
        for name in names {
            guard let scope = DeveloperScope(rawValue: name) else { return nil }
            scopes.insert(scope)
        }
        return scopes
    }

    /// The stored and printed spelling: sorted, comma-separated.
    public static func format(_ scopes: Set<DeveloperScope>) -> String {
        scopes.sorted().map(\.rawValue).joined(separator: ",")
    }
}

/// A developer organisation's id: 1–64 lower-case letters, digits and dashes, starting with a
/// letter or digit (`acme-games`). It appears in URLs, CLI arguments and audit targets.
public enum DeveloperID {
    public static func isValid(_ id: String) -> Bool {
        guard let first = id.unicodeScalars.first, id.unicodeScalars.count <= 64 else { return false }
        let allowed = { (c: Unicode.Scalar) in ("a"..."z").contains(c) || ("0"..."9").contains(c) || c == "-" }
        return first != "-" && id.unicodeScalars.allSatisfy(allowed)
    }

    /// A readable id made from an organisation's name: `Acme Games, Inc.` → `acme-games-inc`;
    /// nil when the name has no letter or digit to build one from.
    public static func slug(of name: String) -> String? {
        var out = ""
        var dash = false
        for scalar in name.lowercased().unicodeScalars {
            if ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) {
                if dash && !out.isEmpty { out.append("-") }
                out.unicodeScalars.append(scalar)
                dash = false
            } else {
                dash = true
            }
            if out.count >= 48 { break }
        }
        return out.isEmpty ? nil : out
    }
}

/// Where a version stands in review (docs/developers.md, "Review"): only `released` versions are
/// offered by the storefront, installs, `restore` and `updates`.
public enum VersionReviewState: String, Sendable, CaseIterable, Codable {
    case released
    case inReview = "in_review"
    case rejected
}
