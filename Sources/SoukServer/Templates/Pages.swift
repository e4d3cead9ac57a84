import HTTPTypes
import Hummingbird
import Mustache

/// Server-rendered pages. Templates live here as strings (no resource bundle to lose); every
/// `{{value}}` is HTML-escaped by Mustache. The one unescaped `{{{jsonLD}}}` holds JSON that
/// `AppPagesController.jsonLD` made safe for a `<script>` element (`<`, `>`, `&` as `\u00XX`).
struct Pages: Sendable {
    let library: MustacheLibrary
    /// The hash of the layout's `<style>`, named by every page's `style-src`.
    let styleHash = ContentSecurityPolicy.styleHash(of: Pages.layoutStart)

    init() {
        var library = MustacheLibrary()
        for (name, text) in Self.templates {
            // The templates are constants of this file: a parse failure is a programming error.
            library.register(try! MustacheTemplate(string: text), named: name)
        }
        self.library = library
    }

    /// Renders `template` into a complete HTML response with Souk's security headers. Pass
    /// `formTargets: .soukThenDevice` only for a page whose form is answered with a redirect to
    /// the device (`ContentSecurityPolicy`).
    func response(_ template: String, _ values: [String: Any], status: HTTPResponse.Status = .ok,
                  extraHeaders: HTTPFields = [:], formTargets: ContentSecurityPolicy.FormTargets = .souk) -> Response {
        let html = library.render(values, withTemplate: template) ?? ""
        var headers = Self.securityHeaders
        headers[.contentSecurityPolicy] = ContentSecurityPolicy(page: html, styleHash: styleHash, formTargets: formTargets).headerValue
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

    static let layoutStart = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{title}} · {{marketplace}}</title>
        <style>
        body{font-family:-apple-system,system-ui,sans-serif;max-width:26rem;margin:3rem auto;padding:0 1rem;color:#1d1d1f}
        h1{font-size:1.5rem}label{display:block;margin:.8rem 0 .3rem}input[type=email],input[type=password]{width:100%;padding:.6rem;font-size:1rem;box-sizing:border-box}
        button{margin-top:1.2rem;width:100%;padding:.7rem;font-size:1rem;background:#0071e3;color:#fff;border:0;border-radius:.5rem}
        .error{background:#fde8e8;padding:.6rem;border-radius:.4rem}.hint{color:#555}
        a.install{display:block;text-align:center;padding:.7rem;background:#0071e3;color:#fff;border-radius:.5rem;text-decoration:none}
        </style></head><body>
        """

    static let templates: [String: String] = [
        "sign-in": layoutStart + """
            <h1>Sign in to {{marketplace}}</h1>
            {{#loginHint}}<p class="hint">Your device asks to sign in as <strong>{{loginHint}}</strong>.</p>{{/loginHint}}
            {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
            <form method="post" action="{{action}}">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}">
            {{#hidden}}<input type="hidden" name="{{name}}" value="{{value}}">
            {{/hidden}}<label for="email">Email</label>
            <input id="email" name="email" type="email" autocomplete="username" required value="{{email}}">
            <label for="password">Password</label>
            <input id="password" name="password" type="password" autocomplete="current-password" required>
            <button type="submit">Sign in</button>
            </form>{{#signUp}}<p><a href="/signup">Create an account</a></p>{{/signUp}}</body></html>
            """,
        "continue": layoutStart + """
            <h1>Sign in to {{marketplace}}</h1>
            {{#loginHint}}<p class="hint">Your device asks to sign in as <strong>{{loginHint}}</strong>.</p>{{/loginHint}}
            <form method="post" action="/oauth/authorize">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <input type="hidden" name="continue" value="1">
            {{#hidden}}<input type="hidden" name="{{name}}" value="{{value}}">
            {{/hidden}}<button type="submit">Continue as {{email}}</button>
            </form>
            <p><a href="{{otherAccount}}">Use another account</a></p>
            </body></html>
            """,
        "account": layoutStart + """
            <h1>Your account</h1>
            <p>Signed in as <strong>{{email}}</strong>.</p>
            {{#notice}}<p class="hint" role="status">{{notice}}</p>{{/notice}}
            <h2>Devices</h2>
            {{^devices}}<p class="hint">No device is signed in.</p>{{/devices}}
            <ul>{{#devices}}
            <li><strong>{{clientId}}</strong> · signed in {{signedIn}} · last used {{lastUsed}}
            <form method="post" action="/account/devices/sign-out"><input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <input type="hidden" name="client_id" value="{{clientId}}"><button type="submit">Sign out this device</button></form></li>
            {{/devices}}</ul>
            {{#hasDevices}}<form method="post" action="/account/devices/sign-out"><input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <button type="submit">Sign out all devices</button></form>{{/hasDevices}}
            <h2>Purchases</h2>
            {{^purchases}}<p class="hint">Nothing bought yet.</p>{{/purchases}}
            <ul>{{#purchases}}<li><strong>{{item}}</strong> · {{price}} · {{status}}</li>
            {{/purchases}}</ul>
            <h2>Active installs</h2>
            <p class="hint">{{installCount}} device(s) with a live app license{{#deviceLimit}}, of at most {{deviceLimit}}{{/deviceLimit}}.</p>
            <ul>{{#installs}}
            <li><strong>Device {{deviceId}}</strong> · {{apps}} app(s) · licensed until {{expires}}
            <form method="post" action="/account/installs/release"><input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <input type="hidden" name="device_id" value="{{deviceId}}"><button type="submit">Release this device</button></form></li>
            {{/installs}}</ul>
            <form method="post" action="/signout"><input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <button type="submit">Sign out of this browser</button></form>
            </body></html>
            """,
        "license-resolve": layoutStart + """
            <h1>{{title}}</h1>
            <p>{{explanation}}</p>
            {{#action}}<p><a class="install" href="{{href}}">{{label}}</a></p>{{/action}}
            </body></html>
            """,
        "sign-up": layoutStart + """
            <h1>Create an account on {{marketplace}}</h1>
            {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
            <form method="post" action="/signup">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <label for="email">Email</label>
            <input id="email" name="email" type="email" autocomplete="username" required value="{{email}}">
            <label for="password">Password (at least 8 characters)</label>
            <input id="password" name="password" type="password" autocomplete="new-password" required minlength="8">
            <button type="submit">Create account</button>
            </form></body></html>
            """,
        "catalog": layoutStart + """
            <h1>{{marketplace}}</h1>
            {{^apps}}<p class="hint">No apps yet.</p>{{/apps}}
            <ul>{{#apps}}
            <li><a href="{{url}}"><strong>{{name}}</strong></a>{{#subtitle}} · {{subtitle}}{{/subtitle}}{{#developer}} · {{developer}}{{/developer}}</li>
            {{/apps}}</ul>
            <p><a href="/account">Your account</a></p>
            </body></html>
            """,
        "app": layoutStart + """
            <script type="application/ld+json">{{{jsonLD}}}</script>
            {{#icon}}<img src="{{icon}}" alt="" width="96" height="96">{{/icon}}
            <h1>{{name}}</h1>
            {{#subtitle}}<p class="hint">{{subtitle}}</p>{{/subtitle}}
            {{#developer}}<p>By {{developer}}</p>{{/developer}}
            <p>{{description}}</p>
            {{#price}}<p class="price">{{price}}</p>{{/price}}
            {{#canInstall}}<form method="post" action="{{installAction}}">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <button type="submit">Install</button></form>{{/canInstall}}
            {{#paymentNote}}<p class="hint">{{paymentNote}}</p>{{/paymentNote}}
            {{#buyAction}}<form method="post" action="{{buyAction}}">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <button type="submit">{{buyLabel}}</button></form>{{/buyAction}}
            {{^signedIn}}<p><a href="/signin">Sign in to install</a></p>{{/signedIn}}
            <h2>Versions</h2>
            <ul>{{#versions}}<li>{{shortVersion}} ({{bundleVersion}}) · released {{released}} · {{requirements}}</li>
            {{/versions}}</ul>
            <p><a href="/apps">All apps</a></p>
            </body></html>
            """,
        "install": layoutStart + """
            <h1>Install {{name}}</h1>
            <p>Tap to install on this iPhone or iPad. The link works once, for the next 10 minutes.</p>
            <p><a class="install" href="{{link}}">Install {{name}}</a></p>
            <p class="hint"><a href="{{appURL}}">Back to {{name}}</a></p>
            </body></html>
            """,
        "error": layoutStart + """
            <h1>{{title}}</h1>
            <p class="error" role="alert">{{message}}</p>
            </body></html>
            """,
    ]
}
