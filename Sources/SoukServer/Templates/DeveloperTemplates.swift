/// The developer console's templates (merged into `Pages`). Each console page puts
/// `{{> developer-nav}}` first; `{{#isOwner}}` holds what only an organisation's owners see.
enum DeveloperTemplates {
    static let all: [String: String] = [
        "developer-nav": """
            <nav class="console" aria-label="Developer console">
            {{^mustEnrol}}<a href="/developer">Apps and catalogs</a> <a href="/developer/sales">Sales</a> <a href="/developer/metrics">Metrics</a> <a href="/developer/statements">Statements</a> {{#isOwner}}<a href="/developer/keys">API keys</a> {{/isOwner}}
            {{/mustEnrol}}<a href="/developer/security">Two-factor sign-in</a> <span class="muted">{{memberEmail}} · {{developerName}} ({{memberRole}})</span>
            </nav>
            """,
        "developer-forbidden": """
            {{> start}}
            <h1>Not available</h1>
            <p>The developer console is for members of a developer organisation. You are signed in as <strong>{{email}}</strong>, which is a member of none.</p>
            <p>Ask the marketplace's operator to add you to your organisation, or an owner of it.</p>
            <p><a href="/account">Your account</a></p>
            {{> end}}
            """,
        "developer-home": """
            {{> start}}
            {{> developer-nav}}
            <h1>{{developerName}}</h1>
            <h2>Apps</h2>
            {{^apps}}<p class="muted">Your organisation has no app in the marketplace yet; the marketplace's operator adds it.</p>{{/apps}}
            {{#has-apps}}<div class="table-wrap" tabindex="0"><table><caption class="visually-hidden">Your apps</caption>
            <thead><tr><th scope="col">Name</th><th scope="col">AppleItemID</th><th scope="col">Bundle id</th><th scope="col">Availability</th></tr></thead><tbody>{{/has-apps}}
            {{#apps}}<tr><td><a href="/developer/apps/{{id}}">{{name}}</a></td><td>{{id}}</td><td>{{bundleId}}</td><td>{{availability}}</td></tr>
            {{/apps}}{{#has-apps}}</tbody></table></div>{{/has-apps}}
            <h2>In-app catalogs</h2>
            {{^catalogs}}<p class="muted">Your organisation has no in-app catalog yet.</p>{{/catalogs}}
            {{#has-catalogs}}<div class="table-wrap" tabindex="0"><table><caption class="visually-hidden">Your in-app catalogs</caption>
            <thead><tr><th scope="col">App</th><th scope="col">Revision</th><th scope="col">On sale</th></tr></thead><tbody>{{/has-catalogs}}
            {{#catalogs}}<tr><td><a href="{{href}}">{{app}}</a></td><td>{{revision}}</td><td>{{onSale}}</td></tr>
            {{/catalogs}}{{#has-catalogs}}</tbody></table></div>{{/has-catalogs}}
            {{> end}}
            """,
        "developer-app": """
            {{> start}}
            {{> developer-nav}}
            <h1>{{name}}</h1>
            {{#notice}}<p class="notice" role="status">{{notice}}</p>{{/notice}}
            {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
            <dl class="facts"><dt>AppleItemID</dt><dd>{{id}}</dd><dt>Bundle id</dt><dd>{{bundleId}}</dd><dt>Availability</dt><dd>{{availability}}</dd></dl>
            {{> console-app}}
            {{> end}}
            """,
        "developer-catalog": """
            {{> start}}
            {{> developer-nav}}
            {{> console-catalog}}
            <p>Edit the file, then review what applying it would change. Products left out are retired.</p>
            {{> console-catalog-form}}
            {{> end}}
            """,
        "developer-grants": """
            {{> start}}
            {{> developer-nav}}
            <h1>Promotional grants of {{app}}</h1>
            <p><a href="{{catalogHref}}">Back to the catalog</a></p>
            {{#notice}}<p class="notice" role="status">{{notice}}</p>{{/notice}}
            {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
            <p>A grant opens an entitlement for one person outside every store. People are named by their account token in this app (the app gets it from <code>GET /commerce/{{app}}/account-token</code>), never by email.</p>
            {{^grants}}<p class="muted">No grants yet.</p>{{/grants}}
            {{#has-grants}}<div class="table-wrap" tabindex="0"><table><caption class="visually-hidden">Grants, newest first</caption>
            <thead><tr><th scope="col">Account token</th><th scope="col">Entitlement</th><th scope="col">From</th><th scope="col">Until</th><th scope="col">Reason</th><th scope="col">State</th></tr></thead><tbody>{{/has-grants}}
            {{#grants}}<tr><td><code>{{accountToken}}</code></td><td>{{entitlement}}</td><td>{{starts}}</td><td>{{until}}</td><td>{{reason}}</td>
            <td>{{state}}{{#revocable}} <form method="post" action="/developer/grants/{{id}}/revoke" class="inline">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <button type="submit" class="secondary">Revoke<span class="visually-hidden"> the grant of {{entitlement}} to {{accountToken}}</span></button></form>{{/revocable}}</td></tr>
            {{/grants}}{{#has-grants}}</tbody></table></div>{{/has-grants}}
            <h2>Grant an entitlement</h2>
            <form method="post" action="{{action}}">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <label for="grant-token">Account token</label>
            <input id="grant-token" name="accountToken" type="text" required value="{{accountToken}}" autocomplete="off" spellcheck="false">
            <label for="grant-entitlement">Entitlement</label>
            <select id="grant-entitlement" name="entitlement">{{#entitlements}}<option value="{{id}}"{{#selected}} selected{{/selected}}>{{id}}</option>{{/entitlements}}</select>
            <label for="grant-until">Until (optional: an RFC 3339 date or date-time; empty: until revoked)</label>
            <input id="grant-until" name="until" type="text" value="{{until}}" autocomplete="off">
            <label for="grant-reason">Reason</label>
            <input id="grant-reason" name="reason" type="text" required maxlength="500" value="{{reason}}" autocomplete="off">
            <button type="submit">Grant</button>
            </form>
            {{> end}}
            """,
        "developer-purchases": """
            {{> start}}
            {{> developer-nav}}
            <h1>Purchases of {{app}}</h1>
            <p><a href="{{catalogHref}}">Back to the catalog</a></p>
            <p>The newest 200 purchases the stores verified: sales, subscriptions and refunds. Buyers are named by their account token in this app, never by email.</p>
            {{^purchases}}<p class="muted">No purchases yet.</p>{{/purchases}}
            {{#has-purchases}}<div class="table-wrap" tabindex="0"><table><caption class="visually-hidden">Purchases, newest first</caption>
            <thead><tr><th scope="col">Buyer (account token)</th><th scope="col">Product</th><th scope="col">Type</th><th scope="col">Store</th><th scope="col">Environment</th><th scope="col">Purchased</th><th scope="col">State</th></tr></thead><tbody>{{/has-purchases}}
            {{#purchases}}<tr><td><code>{{accountToken}}</code></td><td>{{product}}</td><td>{{type}}</td><td>{{store}}</td><td>{{environment}}</td><td>{{purchased}}</td><td>{{state}}</td></tr>
            {{/purchases}}{{#has-purchases}}</tbody></table></div>{{/has-purchases}}
            {{> end}}
            """,
        "developer-catalog-review": """
            {{> start}}
            {{> developer-nav}}
            {{> console-catalog-review}}
            {{> end}}
            """,
        "developer-catalog-too-large": """
            {{> start}}
            {{> developer-nav}}
            <h1>Catalog too large</h1>
            <p class="error" role="alert">The catalog you sent is larger than {{limit}}, the most the console's editor takes. Nothing was reviewed or applied.</p>
            <p><a href="{{catalogHref}}">Back to the catalog</a></p>
            {{> end}}
            """,
        "developer-keys": """
            {{> start}}
            {{> developer-nav}}
            <h1>API keys</h1>
            {{#notice}}<p class="notice" role="status">{{notice}}</p>{{/notice}}
            {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
            {{#secret}}<p>The new key (send it as <code>Authorization: Bearer …</code>):</p><p><code id="new-key">{{secret}}</code></p>{{/secret}}
            <p>Keys of {{developerName}} for the developer API; a key does only what its scopes allow.</p>
            {{^keys}}<p class="muted">No keys yet.</p>{{/keys}}
            {{#has-keys}}<div class="table-wrap" tabindex="0"><table><caption class="visually-hidden">API keys, newest first</caption>
            <thead><tr><th scope="col">Name</th><th scope="col">Scopes</th><th scope="col">Ends with</th><th scope="col">Made</th><th scope="col">Last used</th><th scope="col">State</th></tr></thead><tbody>{{/has-keys}}
            {{#keys}}<tr><td>{{name}}</td><td>{{scopes}}</td><td><code>…{{hint}}</code></td><td>{{created}}</td><td>{{lastUsed}}</td>
            <td>{{#live}}<form method="post" action="/developer/keys/{{id}}/revoke" class="inline">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <button type="submit" class="danger">Revoke<span class="visually-hidden"> key {{name}}</span></button></form>{{/live}}{{^live}}revoked {{revoked}}{{/live}}</td></tr>
            {{/keys}}{{#has-keys}}</tbody></table></div>{{/has-keys}}
            <h2>Make a key</h2>
            <form method="post" action="/developer/keys">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <label for="key-name">Name (what uses it, e.g. “CI”)</label>
            <input id="key-name" name="name" type="text" required maxlength="100" autocomplete="off">
            <fieldset><legend>Scopes</legend>
            {{#scopes}}<input id="{{field}}" name="{{field}}" type="checkbox"> <label for="{{field}}" class="inline-label">{{value}}</label><br>
            {{/scopes}}</fieldset>
            <button type="submit">Make key</button>
            </form>
            {{> end}}
            """,
        "developer-security": """
            {{> start}}
            {{> developer-nav}}
            {{> console-two-factor}}
            {{> end}}
            """,
        "developer-recovery-codes": """
            {{> start}}
            {{> developer-nav}}
            {{> console-recovery-codes}}
            {{> end}}
            """,
    ]
}
