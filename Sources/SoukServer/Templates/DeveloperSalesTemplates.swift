/// The developer console's webhooks, sales and payout statement pages (merged into `Pages`). The
/// statement page renders the operator console's `payout-statement` partial inside the developer
/// console's navigation: one template for both consoles.
enum DeveloperSalesTemplates {
    static let all: [String: String] = [
        "developer-webhooks": """
            {{> start}}
            {{> developer-nav}}
            <h1>Webhooks of {{app}}</h1>
            <p><a href="{{catalogHref}}">Back to the catalog</a></p>
            {{#notice}}<p class="notice" role="status">{{notice}}</p>{{/notice}}
            {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
            {{#secret}}<p>The signing secret of the new webhook (HMAC-SHA256 key of its signatures):</p><p><code id="new-secret">{{secret}}</code></p>
            <p>Copy it now: it is shown only this once.</p>{{/secret}}
            <p>Every lifecycle event of {{app}} (purchases, renewals, refunds, revocations) is posted to each endpoint, signed with its secret, and retried with back-off until it is answered with 2xx.</p>
            <h2>Endpoints</h2>
            {{^endpoints}}<p class="muted">No webhook yet.</p>{{/endpoints}}
            {{#has-endpoints}}<div class="table-wrap" tabindex="0"><table><caption class="visually-hidden">Webhook endpoints, oldest first</caption>
            <thead><tr><th scope="col">URL</th><th scope="col">Added</th><th scope="col">Delete</th></tr></thead><tbody>{{/has-endpoints}}
            {{#endpoints}}<tr><td><code>{{url}}</code></td><td>{{created}}</td>
            <td><form method="post" action="/developer/webhooks/{{id}}/delete" class="inline"><input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <button type="submit" class="secondary">Delete<span class="visually-hidden"> the webhook to {{url}}</span></button></form></td></tr>
            {{/endpoints}}{{#has-endpoints}}</tbody></table></div>{{/has-endpoints}}
            <h2>Add a webhook</h2>
            <form method="post" action="{{action}}">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <label for="webhook-url">URL (https)</label>
            <input id="webhook-url" name="url" type="url" required value="{{url}}" autocomplete="off" spellcheck="false">
            <label for="webhook-secret">Signing secret (at least 16 characters; empty: the console makes one and shows it once)</label>
            <input id="webhook-secret" name="secret" type="password" minlength="16" autocomplete="new-password">
            <button type="submit">Add webhook</button>
            </form>
            <h2>Latest deliveries</h2>
            {{^deliveries}}<p class="muted">No delivery yet.</p>{{/deliveries}}
            {{#has-deliveries}}<div class="table-wrap" tabindex="0"><table><caption class="visually-hidden">The latest webhook deliveries, newest first</caption>
            <thead><tr><th scope="col">Created</th><th scope="col">Event</th><th scope="col">Type</th><th scope="col">Endpoint</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Last answer</th><th scope="col">Next attempt</th></tr></thead><tbody>{{/has-deliveries}}
            {{#deliveries}}<tr><td>{{created}}</td><td><code>{{event}}</code></td><td>{{type}}</td><td><code>{{url}}</code></td><td>{{status}}</td><td>{{attempts}}</td><td>{{last}}</td><td>{{next}}</td></tr>
            {{/deliveries}}{{#has-deliveries}}</tbody></table></div>{{/has-deliveries}}
            {{> end}}
            """,
        "developer-sales": """
            {{> start}}
            {{> developer-nav}}
            <h1>Sales</h1>
            <p>The newest 200 sales of your paid apps through the marketplace's checkout, and their refunds. Buyers are named by their account token in the app, never by email.</p>
            {{^sales}}<p class="muted">No paid-app sales yet.</p>{{/sales}}
            {{#has-sales}}<div class="table-wrap" tabindex="0"><table><caption class="visually-hidden">Paid-app sales, newest first</caption>
            <thead><tr><th scope="col">App</th><th scope="col">Buyer (account token)</th><th scope="col">Amount</th><th scope="col">Environment</th><th scope="col">Paid</th><th scope="col">State</th><th scope="col">Refunded</th></tr></thead><tbody>{{/has-sales}}
            {{#sales}}<tr><td><a href="{{appHref}}">{{app}}</a></td><td><code>{{accountToken}}</code></td><td>{{amount}}</td><td>{{environment}}</td><td>{{paid}}</td><td>{{status}}</td><td>{{refund}}</td></tr>
            {{/sales}}{{#has-sales}}</tbody></table></div>{{/has-sales}}
            <h2>In-app purchases and subscriptions</h2>
            {{^catalogs}}<p class="muted">Your organisation has no in-app catalog.</p>{{/catalogs}}
            <ul>{{#catalogs}}<li><a href="{{href}}">Purchases of {{app}}</a> (sales, subscriptions active and ended, refunds)</li>{{/catalogs}}</ul>
            <p><a href="/developer/statements">Payout statements</a></p>
            {{> end}}
            """,
        "developer-payout-statement": """
            {{> start}}
            {{> developer-nav}}
            {{> payout-statement}}
            {{> end}}
            """,
    ]
}
