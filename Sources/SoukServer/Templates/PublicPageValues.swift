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

/// A hidden field a sign-in form carries back (the authorization request's parameters, a return path).
struct HiddenField: Sendable {
    let name: String
    let value: String
}

/// `sign-in` (the website's and the OAuth authorization's) and `sign-up`: the form, with the
/// email entered kept when it is refused.
struct SignInValues: Sendable {
    let title: String
    let marketplace: String
    /// Where the form posts.
    let action: String
    let csrfToken: String
    let email: String
    var hidden: [HiddenField] = []
    /// The account the device asks to sign in as.
    var loginHint: String?
    var notice: String?
    var error: String?
    /// Whether the page links to sign-up.
    var signUp = false
}

/// `continue`: one tap for a person already signed in on the website.
struct ContinueValues: Sendable {
    let title: String
    let marketplace: String
    let email: String
    let csrfToken: String
    let otherAccount: String
    let hidden: [HiddenField]
    let loginHint: String?
}

/// `signin-code`: the second factor of a console sign-in.
struct SignInCodeValues: Sendable {
    let title: String
    let marketplace: String
    let email: String
    let csrfToken: String
    let next: String
    let error: String?
}

/// `password-reset`: the new password's form, reached by a reset link.
struct PasswordResetValues: Sendable {
    let title: String
    let marketplace: String
    let email: String
    let action: String
    let csrfToken: String
    let error: String?
}
