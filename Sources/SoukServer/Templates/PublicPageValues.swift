/// The Mustache contexts of the small public pages, read by their properties' names: every one
/// gives the layout its `title` and `marketplace`.

/// `error`: what went wrong, in words, with the request's id when it has one.
struct ErrorPageValues: Sendable {
    let title: String
    let marketplace: String
    let message: String
    var requestId: String?
}

/// `install`: the one-time `marketplace-kit://install` link for the signed-in person.
struct InstallPageValues: Sendable {
    let title: String
    let marketplace: String
    let name: String
    let link: String
    let appURL: String
}

/// `admin-forbidden` and `developer-forbidden`: the account is signed in but has no way in.
struct ForbiddenPageValues: Sendable {
    let title: String
    let marketplace: String
    let email: String
}

/// `license-resolve`: why a license lapsed and what fixes it.
struct LicenseResolveValues: Sendable {
    struct Action: Sendable {
        let label: String
        let href: String
    }

    let title: String
    let marketplace: String
    let explanation: String
    let action: Action?
}

/// A page that shows only its fixed text (`password-reset-invalid`).
struct PlainPageValues: Sendable {
    let title: String
    let marketplace: String
}
