import HTTPTypes
import Hummingbird
import Mustache
import SoukApp

/// Server-rendered pages. Templates live here as strings (no resource bundle to lose); every
/// `{{value}}` is HTML-escaped by Mustache. The one unescaped `{{{jsonLD}}}` holds JSON that
/// `AppPagesController.jsonLD` made safe for a `<script>` element (`<`, `>`, `&` as `\u00XX`).
struct Pages: Sendable {
    let library: MustacheLibrary

    /// The server's templates, checked once at start: a template that does not parse, or a
    /// `PageTemplate` (a page a handler renders, or a partial one includes) that is not among
    /// `templates`, stops start-up with its name (`StartupError`) instead of rendering an empty page.
    init(templates: [String: String] = Pages.allTemplates) throws {
        var library = MustacheLibrary()
        for (name, text) in templates {
            do {
                library.register(try MustacheTemplate(string: text), named: name)
            } catch {
                throw StartupError("The page template \"\(name)\" does not parse: \(error)")
            }
        }
        if let missing = PageTemplate.allCases.first(where: { templates[$0.rawValue] == nil }) {
            throw StartupError("The page template \"\(missing.rawValue)\" is missing from the server's templates (Sources/SoukServer/Templates).")
        }
        self.library = library
    }

    /// Every template: this file's, the storefront's, the account pages' and the console's, and
    /// the layout partials (`{{> start}}`, `{{> start-plain}}`, `{{> end}}`).
    static var allTemplates: [String: String] {
        var all = ["start": layoutStart, "start-plain": layoutStartPlain, "end": layoutEnd]
        for group in [templates, StorefrontTemplates.all, AccountTemplates.all, AdminTemplates.all, AdminCommerceTemplates.all, DeviceTemplates.all,
                      AdminReviewTemplates.all, AdminPayoutTemplates.all, DeveloperTemplates.all,
                      StoreCredentialTemplates.all, DeveloperSalesTemplates.all, MetricsTemplates.all] {
            all.merge(group) { _, _ in preconditionFailure("two templates share a name") }
        }
        return all
    }

    /// Renders `template` into a complete HTML response with Souk's security headers. Pass
    /// `formTargets: .soukThenDevice` only for a page whose form is answered with a redirect to
    /// the device (`ContentSecurityPolicy`).
    /// `context` is a typed value that Mustache reads by its stored properties' names: a page's
    /// `…Values`, or a `PageContext` of a layout and a page.
    func response(_ template: PageTemplate, _ context: some Sendable, status: HTTPResponse.Status = .ok,
                  extraHeaders: HTTPFields = [:], formTargets: ContentSecurityPolicy.FormTargets = .souk) -> Response {
        let html = library.render(context, withTemplate: template.rawValue) ?? ""
        var headers = Self.securityHeaders
        headers[.contentSecurityPolicy] = ContentSecurityPolicy(page: html, formTargets: formTargets).headerValue
        headers[.contentType] = "text/html; charset=utf-8"
        for field in extraHeaders { headers.append(field) }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    /// No framing, no referrer, nothing cached; `response` adds the page's `ContentSecurityPolicy`.
    static let securityHeaders: HTTPFields = [
        HTTPField.Name("X-Content-Type-Options")!: "nosniff",
        HTTPField.Name("X-Frame-Options")!: "DENY",
        HTTPField.Name("Referrer-Policy")!: "no-referrer",
        .cacheControl: "no-store",
    ]

    static let head = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{title}} · {{marketplace}}</title>
        <link rel="stylesheet" href="\(Assets.css.path)">
        {{#scripts}}<script src="{{.}}" defer></script>{{/scripts}}
        </head><body>
        <a class="skip" href="#main">Skip to content</a>
        """

    /// The storefront's header: the marketplace, search, all apps, the account. Pages give
    /// `marketplace` and `title` (and `query` to keep a search in its box).
    static let layoutStart = head + """
        <header class="site"><nav aria-label="Main">
        <a class="brand" href="/">{{marketplace}}</a>
        <form class="search" role="search" method="get" action="/search"><label for="site-search" class="visually-hidden">Search apps</label>
        <input id="site-search" name="q" type="search" placeholder="Search apps" value="{{query}}"></form>
        <a href="/apps">All apps</a> <a href="/account">Account</a>
        </nav></header>
        <main id="main">
        """

    /// The header of the sign-in pages and others whose only form is their own (a device's sign-in
    /// sheet has no use for the storefront's search): the marketplace's name only.
    static let layoutStartPlain = head + """
        <header class="site"><nav aria-label="Main"><a class="brand" href="/">{{marketplace}}</a></nav></header>
        <main id="main" class="narrow">
        """

    static let layoutEnd = """
        </main>
        <footer class="site"><p>{{marketplace}} · <a href="/apps">All apps</a> · <a href="/account">Your account</a></p></footer>
        </body></html>
        """

    static let templates: [String: String] = [
        "sign-in": """
            {{> start-plain}}
            <h1>Sign in to {{marketplace}}</h1>
            {{#loginHint}}<p class="hint">Your device asks to sign in as <strong>{{loginHint}}</strong>.</p>{{/loginHint}}
            {{#notice}}<p class="notice" role="status">{{notice}}</p>{{/notice}}
            {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
            <form method="post" action="{{action}}">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}">
            {{#hidden}}<input type="hidden" name="{{name}}" value="{{value}}">
            {{/hidden}}<label for="email">Email</label>
            <input id="email" name="email" type="email" autocomplete="username" required value="{{email}}">
            <label for="password">Password</label>
            <input id="password" name="password" type="password" autocomplete="current-password" required>
            <button type="submit">Sign in</button>
            </form>{{#signUp}}<p><a href="/signup">Create an account</a></p>{{/signUp}}{{> end}}
            """,
        "continue": """
            {{> start-plain}}
            <h1>Sign in to {{marketplace}}</h1>
            {{#loginHint}}<p class="hint">Your device asks to sign in as <strong>{{loginHint}}</strong>.</p>{{/loginHint}}
            <form method="post" action="/oauth/authorize">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <input type="hidden" name="continue" value="1">
            {{#hidden}}<input type="hidden" name="{{name}}" value="{{value}}">
            {{/hidden}}<button type="submit">Continue as {{email}}</button>
            </form>
            <p><a href="{{otherAccount}}">Use another account</a></p>
            {{> end}}
            """,
        "license-resolve": """
            {{> start-plain}}
            <h1>{{title}}</h1>
            <p>{{explanation}}</p>
            {{#action}}<p><a class="install" href="{{href}}">{{label}}</a></p>{{/action}}
            {{> end}}
            """,
        "sign-up": """
            {{> start-plain}}
            <h1>Create an account on {{marketplace}}</h1>
            {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
            <form method="post" action="/signup">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <label for="email">Email</label>
            <input id="email" name="email" type="email" autocomplete="username" required value="{{email}}">
            <label for="password">Password (at least 8 characters)</label>
            <input id="password" name="password" type="password" autocomplete="new-password" required minlength="8">
            <button type="submit">Create account</button>
            </form>{{> end}}
            """,
        "install": """
            {{> start-plain}}
            <h1>Install {{name}}</h1>
            <p>Tap to install on this iPhone or iPad. The link works once, for the next 10 minutes.</p>
            <p><a class="install" href="{{link}}">Install {{name}}</a></p>
            <p class="hint"><a href="{{appURL}}">Back to {{name}}</a></p>
            {{> end}}
            """,
        "error": """
            {{> start}}
            <h1>{{title}}</h1>
            <p class="error" role="alert">{{message}}</p>
            {{#requestId}}<p class="hint">Request id: <code>{{requestId}}</code></p>{{/requestId}}
            <ul class="chips"><li><a href="/">Home</a></li><li><a href="/apps">All apps</a></li><li><a href="/account">Your account</a></li></ul>
            {{> end}}
            """,
    ]
}
