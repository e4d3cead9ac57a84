/// The console's pages for an app's store subscriptions (merged into `Pages` as `AdminTemplates`
/// are, with the same rules): the renewal-date extensions and the mass extension's confirmation.
enum AdminCommerceTemplates {
    static let all: [String: String] = [
        "admin-extensions": """
            {{> start}}
            {{> console-nav}}
            <h1>Renewal-date extensions of {{app}}</h1>
            {{#notice}}<p class="notice" role="status">{{notice}}</p>{{/notice}}
            {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
            <p>App Store renewal dates moved for this app (one person's from their page, or every subscriber of a product here),
            newest first, with what Apple answered. In the catalog of <a href="{{catalogHref}}">{{app}}</a>.</p>
            {{#canExtend}}<h2>Extend every active subscriber of a product</h2>
            <p>Asks Apple to move the renewal date of every eligible active subscriber (Apple's mass extension: at most 90 days; a customer
            gets at most two extensions a year). Apple extends them in the background; the entitlements move when it is complete.</p>
            {{#has-subscriptions}}<form method="post" action="{{action}}" class="wide">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <label for="mass-product">Subscription product</label>
            <select id="mass-product" name="product" required>{{#subscriptions}}<option value="{{id}}"{{#selected}} selected{{/selected}}>{{id}} (App Store {{sku}})</option>{{/subscriptions}}</select>
            <label for="mass-days">Days (1 to 90)</label>
            <input id="mass-days" name="days" type="number" min="1" max="90" value="{{days}}" required>
            <label for="mass-reason">Reason</label>
            <select id="mass-reason" name="reason">{{#reasons}}<option value="{{code}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/reasons}}</select>
            <label for="mass-storefronts">Storefronts (ISO 3166-1 alpha-3 codes such as USA, separated by commas; empty: every storefront)</label>
            <input id="mass-storefronts" name="storefronts" type="text" value="{{storefronts}}" autocomplete="off">
            <label for="mass-environment">Environment</label>
            <select id="mass-environment" name="environment">{{#environments}}<option value="{{name}}"{{#selected}} selected{{/selected}}>{{name}}</option>{{/environments}}</select>
            <button type="submit">Review the extension</button>
            </form>{{/has-subscriptions}}
            {{^subscriptions}}<p class="muted">The catalog has no auto-renewable subscription.</p>{{/subscriptions}}{{/canExtend}}
            <h2>Requests</h2>
            {{^requests}}<p class="muted">No renewal-date extension asked for this app yet.</p>{{/requests}}
            {{#has-requests}}<div class="table-wrap" tabindex="0"><table id="extension-requests"><caption class="visually-hidden">Renewal-date extensions, newest first</caption>
            <thead><tr><th scope="col">Requested</th><th scope="col">Kind</th><th scope="col">Product</th><th scope="col">Subscription</th><th scope="col">Days</th>
            <th scope="col">Reason</th><th scope="col">Status</th><th scope="col">Succeeded</th><th scope="col">Failed</th><th scope="col">Moved</th>
            <th scope="col">By</th><th scope="col">Detail</th></tr></thead><tbody>{{/has-requests}}
            {{#requests}}<tr><td>{{requested}}<br><code class="muted">{{request}}</code></td><td>{{kind}} ({{environment}})</td><td>{{product}}</td><td>{{subscription}}</td>
            <td>{{days}}</td><td>{{reason}}</td><td>{{status}}</td><td>{{succeeded}}</td><td>{{failed}}</td><td>{{moved}}</td><td>{{by}}</td><td>{{detail}}</td></tr>
            {{/requests}}{{#has-requests}}</tbody></table></div>{{/has-requests}}
            {{> end}}
            """,
        "admin-extension-confirm": """
            {{> start}}
            {{> console-nav}}
            <h1>Extend every subscriber of {{product}}?</h1>
            <p>Apple will move the renewal date of every eligible active subscriber of <strong>{{product}}</strong> (App Store
            {{appleProductId}}) in {{app}} by <strong>{{days}} days</strong>: reason {{reasonLabel}}, {{storefrontsText}}, {{environment}}.
            Apple's extensions cannot be taken back.</p>
            <form method="post" action="{{action}}">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <input type="hidden" name="product" value="{{product}}">
            <input type="hidden" name="days" value="{{days}}">
            <input type="hidden" name="reason" value="{{reason}}">
            <input type="hidden" name="storefronts" value="{{storefronts}}">
            <input type="hidden" name="environment" value="{{environment}}">
            <input type="hidden" name="confirmed" value="yes">
            <button type="submit" class="danger">Ask Apple to extend</button> <a href="{{pageHref}}" class="button secondary">Cancel</a>
            </form>
            {{> end}}
            """,
    ]
}
