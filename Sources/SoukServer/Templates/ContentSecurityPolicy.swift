/// The `Content-Security-Policy` of one server-rendered page: nothing inline runs or styles it,
/// nothing frames it, and each page may load and submit only what its template needs.
///
/// - `style-src 'self'`: the one stylesheet Souk serves (`Assets.css`); no inline style (an
///   injected element or a `style=` attribute) applies.
/// - `script-src 'self'` only on a page that loads one of Souk's scripts (`<script src>`); other
///   pages fall under `default-src 'none'`. JSON-LD (`type="application/ld+json"`) is data, not run.
/// - `img-src` is `'self'` only on a page showing an `<img>`, `'none'` elsewhere (which also
///   spares the browser a `/favicon.ico` request).
/// - `form-action` is `'none'` on a page without a form and `'self'` on one with forms. CSP 3
///   applies `form-action` to every redirect that follows a submission, and Chromium and WebKit
///   enforce it there: the OAuth sign-in and "Continue as" forms, answered with a 302 to
///   `app-distribution-oauth:?code=…`, also name that scheme (`FormTargets.soukThenDevice`),
///   and only they do.
struct ContentSecurityPolicy: Sendable, Equatable {
    /// Where a page's forms may send the browser.
    enum FormTargets: Sendable, Equatable {
        /// Forms post to Souk and Souk answers on Souk (its own redirects stay on its origin).
        case souk
        /// The OAuth authorization forms: posted to Souk, answered with a redirect to the device.
        case soukThenDevice
        /// The Buy form: posted to Souk, answered with a redirect to the payment processor's
        /// checkout page at this origin (Stripe Checkout).
        case soukThenPayment(String)
        /// The sign-in forms of a registered OAuth client: answered with a redirect to its redirect
        /// URI, whose source (`RedirectURIRule.formActionSource`) this carries.
        case soukThenClient(String)
    }

    /// The scheme-source of the device hand-off. A scheme-source matches every URL of that scheme
    /// (CSP 3 §6.7.2.8 "scheme-part match"), however the rest is written: `app-distribution-oauth:?code=…`.
    static let deviceScheme = "app-distribution-oauth:"

    var hasForms: Bool
    var hasImages: Bool
    var hasScripts: Bool
    var formTargets: FormTargets

    /// The policy of a rendered page: forms and images are allowed only where the page has them.
    /// Mustache escapes every value, so a `<form` or `<img` in `page` comes from a template.
    init(page: String, formTargets: FormTargets) {
        self.hasForms = page.contains("<form")
        self.hasImages = page.contains("<img")
        self.hasScripts = page.contains("<script src=")
        self.formTargets = formTargets
    }

    /// The header value.
    var headerValue: String {
        let formAction = switch (hasForms, formTargets) {
        case (_, .soukThenDevice): "'self' \(Self.deviceScheme)"
        case (_, .soukThenPayment(let origin)): "'self' \(origin)"
        case (_, .soukThenClient(let source)): "'self' \(source)"
        case (true, .souk): "'self'"
        case (false, .souk): "'none'"
        }
        return "default-src 'none'; style-src 'self'; \(hasScripts ? "script-src 'self'; connect-src 'self'; " : "")img-src \(hasImages ? "'self'" : "'none'"); "
            + "form-action \(formAction); frame-ancestors 'none'; base-uri 'none'"
    }
}
