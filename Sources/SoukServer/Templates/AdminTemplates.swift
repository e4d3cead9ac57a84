/// The admin pages' templates (merged into `Pages`; names must not clash with other groups').
/// Each starts with `{{> start}}` (or `{{> start-plain}}`) and ends with `{{> end}}`; console pages
/// put `{{> console-nav}}` first in `main`. Actions an operator's role alone may take are inside
/// `{{#isOperator}}`, so support never sees them (their POSTs answer 403 as well).
enum AdminTemplates {
    static let all: [String: String] = [
        "console-nav": """
            <nav class="console" aria-label="Console">
            <a href="/admin">Dashboard</a> <a href="/admin/people">People</a> <a href="/admin/audit">Audit log</a>
            <a href="/admin/security">Two-factor sign-in</a> <span class="muted">{{operatorEmail}} · {{role}}</span>
            </nav>
            """,
        "console-pager": """
            {{#pager}}<nav class="pager" aria-label="Pages">{{#previous}}<a href="{{previous}}" rel="prev">Previous page</a>{{/previous}}
            <span class="muted">Page {{page}}</span>{{#next}}<a href="{{next}}" rel="next">Next page</a>{{/next}}</nav>{{/pager}}
            """,
        "admin-forbidden": """
            {{> start}}
            <h1>Not available</h1>
            <p>The console is for the marketplace's operators. You are signed in as <strong>{{email}}</strong>, which has no console role.</p>
            <p><a href="/account">Your account</a></p>
            {{> end}}
            """,
        "signin-code": """
            {{> start-plain}}
            <h1>Enter your code</h1>
            <p>Signed in as <strong>{{email}}</strong>. Enter the 6-digit code your authenticator app shows now, or one of your recovery codes.</p>
            {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
            <form method="post" action="/signin/code" class="wide">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <input type="hidden" name="next" value="{{next}}">
            <label for="code">Code</label>
            <input id="code" name="code" type="text" inputmode="text" autocomplete="one-time-code" required autofocus>
            <button type="submit">Continue</button>
            </form>
            {{> end}}
            """,
        "admin-dashboard": """
            {{> start}}
            {{> console-nav}}
            <h1>Console</h1>
            <h2>Now</h2>
            <dl class="facts">{{#counts}}<dt>{{label}}</dt><dd>{{value}}</dd>
            {{/counts}}</dl>
            <h2>Recent changes</h2>
            {{#has-recent}}<div class="table-wrap"><table><caption class="visually-hidden">The last ten changes</caption>
            <thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">What</th><th scope="col">Target</th></tr></thead><tbody>
            {{/has-recent}}{{#recent}}<tr><td>{{at}}</td><td>{{actor}}</td><td>{{action}}</td><td>{{target}}</td></tr>
            {{/recent}}{{#has-recent}}</tbody></table></div>{{/has-recent}}
            {{^recent}}<p class="muted">No changes recorded yet.</p>{{/recent}}
            <p><a href="/admin/audit">The whole audit log</a></p>
            {{> end}}
            """,
        "admin-people": """
            {{> start}}
            {{> console-nav}}
            <h1>People</h1>
            <form method="get" action="/admin/people" role="search">
            <label for="people-q">Email or account id</label>
            <input id="people-q" name="q" type="text" value="{{query}}" autocomplete="off">
            <button type="submit">Search</button>
            </form>
            {{#none}}<p class="muted">No account matches.</p>{{/none}}
            {{^none}}<div class="table-wrap"><table><caption class="visually-hidden">Accounts</caption>
            <thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Status</th><th scope="col">Created</th></tr></thead><tbody>
            {{#people}}<tr><td><a href="/admin/people/{{id}}">{{email}}</a></td><td>{{role}}</td><td>{{status}}</td><td>{{created}}</td></tr>
            {{/people}}</tbody></table></div>{{/none}}
            {{> console-pager}}
            {{> end}}
            """,
        "admin-person": """
            {{> start}}
            {{> console-nav}}
            <h1>{{email}}</h1>
            {{#notice}}<p class="notice" role="status">{{notice}}</p>{{/notice}}
            {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
            {{#oneTimePassword}}<p class="notice" role="status">New password, shown once: <code>{{oneTimePassword}}</code></p>{{/oneTimePassword}}
            <dl class="facts"><dt>Account id</dt><dd><code>{{id}}</code></dd><dt>Role</dt><dd>{{personRole}}</dd>
            <dt>Status</dt><dd>{{status}}</dd><dt>Purchases in</dt><dd>{{environment}}</dd><dt>Created</dt><dd>{{created}}</dd>
            <dt>Two-factor sign-in</dt><dd>{{twoFactor}}</dd></dl>
            {{#isOperator}}<form method="post" action="/admin/people/{{id}}/{{#disabled}}enable{{/disabled}}{{^disabled}}disable{{/disabled}}" class="inline">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}">
            {{#disabled}}<button type="submit" class="secondary">Enable account</button>{{/disabled}}{{^disabled}}<button type="submit" class="danger">Disable account</button>{{/disabled}}
            </form>{{/isOperator}}
            <h2>Devices</h2>
            {{^devices}}<p class="muted">No signed-in devices.</p>{{/devices}}
            {{#has-devices}}<div class="table-wrap"><table><caption class="visually-hidden">Devices</caption>
            <thead><tr><th scope="col">Device</th><th scope="col">Signed in</th><th scope="col">Last used</th></tr></thead><tbody>{{/has-devices}}
            {{#devices}}<tr><td>{{clientId}}</td><td>{{signedIn}}</td><td>{{lastUsed}}</td></tr>{{/devices}}
            {{#has-devices}}</tbody></table></div>{{/has-devices}}
            <h2>Live licenses</h2>
            {{^licenses}}<p class="muted">No live licenses.</p>{{/licenses}}
            {{#has-licenses}}<div class="table-wrap"><table><caption class="visually-hidden">Live licenses</caption>
            <thead><tr><th scope="col">License</th><th scope="col">App</th><th scope="col">Device</th><th scope="col">Expires</th></tr></thead><tbody>{{/has-licenses}}
            {{#licenses}}<tr><td>{{license}}</td><td>{{app}}</td><td>{{device}}</td><td>{{expires}}</td></tr>{{/licenses}}
            {{#has-licenses}}</tbody></table></div>{{/has-licenses}}
            <h2>In-app purchases</h2>
            {{^purchases}}<p class="muted">No in-app purchases.</p>{{/purchases}}
            {{#has-purchases}}<div class="table-wrap"><table><caption class="visually-hidden">In-app purchases</caption>
            <thead><tr><th scope="col">App</th><th scope="col">Product</th><th scope="col">Store</th><th scope="col">Status</th><th scope="col">Date</th><th scope="col">Revoked</th></tr></thead><tbody>{{/has-purchases}}
            {{#purchases}}<tr><td>{{app}}</td><td>{{product}}</td><td>{{store}}</td><td>{{status}}</td><td>{{date}}</td><td>{{revoked}}</td></tr>{{/purchases}}
            {{#has-purchases}}</tbody></table></div>{{/has-purchases}}
            <h2>Marketplace orders</h2>
            {{^orders}}<p class="muted">No marketplace orders.</p>{{/orders}}
            {{#has-orders}}<div class="table-wrap"><table><caption class="visually-hidden">Marketplace orders</caption>
            <thead><tr><th scope="col">App</th><th scope="col">Price</th><th scope="col">Status</th><th scope="col">Date</th><th scope="col">Processor</th></tr></thead><tbody>{{/has-orders}}
            {{#orders}}<tr><td>{{app}}</td><td>{{price}}</td><td>{{status}}</td><td>{{date}}</td><td>{{processor}}</td></tr>{{/orders}}
            {{#has-orders}}</tbody></table></div>{{/has-orders}}
            <h2>Promotional entitlements</h2>
            {{^grants}}<p class="muted">No grants.</p>{{/grants}}
            {{#has-grants}}<div class="table-wrap"><table><caption class="visually-hidden">Promotional grants</caption>
            <thead><tr><th scope="col">App</th><th scope="col">Entitlement</th><th scope="col">Environment</th><th scope="col">From</th><th scope="col">Until</th><th scope="col">Reason</th><th scope="col">State</th></tr></thead><tbody>{{/has-grants}}
            {{#grants}}<tr><td>{{app}}</td><td>{{entitlement}}</td><td>{{environment}}</td><td>{{starts}}</td><td>{{until}}</td><td>{{reason}}</td>
            <td>{{state}}{{#revocable}}<form method="post" action="/admin/people/{{person}}/grants/{{id}}/revoke" class="inline">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}"> <button type="submit" class="secondary">Revoke<span class="visually-hidden"> {{entitlement}} in {{app}}</span></button></form>{{/revocable}}</td></tr>
            {{/grants}}{{#has-grants}}</tbody></table></div>{{/has-grants}}
            <h3>Grant an entitlement</h3>
            <form method="post" action="/admin/people/{{id}}/grants">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <label for="grant-app">App (bundle id)</label>
            <select id="grant-app" name="app" required>{{#apps}}<option value="{{app}}">{{app}}</option>{{/apps}}</select>
            <label for="grant-entitlement">Entitlement</label>
            <input id="grant-entitlement" name="entitlement" type="text" required>
            <label for="grant-reason">Reason</label>
            <input id="grant-reason" name="reason" type="text" required>
            <label for="grant-until">Until (RFC 3339 date or date-time; empty: until revoked)</label>
            <input id="grant-until" name="until" type="text" placeholder="2027-01-01" autocomplete="off">
            <button type="submit">Grant</button>
            </form>
            <h3>Reset password</h3>
            <form method="post" action="/admin/people/{{id}}/reset-password">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <label for="new-password">New password (empty: make one and show it once)</label>
            <input id="new-password" name="password" type="password" autocomplete="new-password">
            <button type="submit" class="secondary">Reset password and sign out everywhere</button>
            </form>
            {{> end}}
            """,
        "admin-security": """
            {{> start}}
            {{> console-nav}}
            <h1>Two-factor sign-in</h1>
            {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
            {{#enabled}}<p class="notice" role="status">Two-factor sign-in is on: signing in to the console asks for a code after the password.</p>
            <p>Unused recovery codes: {{unusedRecoveryCodes}}. To turn it off, an operator runs <code>souk accounts totp reset --email …</code>.</p>{{/enabled}}
            {{^enabled}}<p>Add this account to an authenticator app (RFC 6238: SHA-1, 6 digits, 30 seconds), then enter the code it shows to turn two-factor sign-in on.</p>
            <h2>Setup key</h2>
            <p>URI: <code>{{uri}}</code></p>
            <p>Secret (base32): <code>{{secret}}</code></p>
            <form method="post" action="/admin/security/confirm">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <label for="totp-code">Code from the app</label>
            <input id="totp-code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" required>
            <button type="submit">Turn on two-factor sign-in</button>
            </form>{{/enabled}}
            {{> end}}
            """,
        "admin-recovery-codes": """
            {{> start}}
            {{> console-nav}}
            <h1>Recovery codes</h1>
            <p class="notice" role="status">Two-factor sign-in is on.</p>
            <p>Keep these ten codes somewhere safe: each signs in once in place of a code. They are shown only now.</p>
            <ul>{{#codes}}<li><code>{{.}}</code></li>{{/codes}}</ul>
            <p><a href="/admin">Continue to the console</a></p>
            {{> end}}
            """,
        "admin-audit": """
            {{> start}}
            {{> console-nav}}
            <h1>Audit log</h1>
            <form method="get" action="/admin/audit">
            <label for="audit-actor">Actor (email or cli:user)</label>
            <input id="audit-actor" name="actor" type="text" value="{{actor}}" autocomplete="off">
            <label for="audit-action">Action (e.g. entitlement.grant)</label>
            <input id="audit-action" name="action" type="text" value="{{action}}" autocomplete="off">
            <button type="submit">Filter</button>
            </form>
            {{#none}}<p class="muted">No entries.</p>{{/none}}
            {{^none}}<div class="table-wrap"><table><caption class="visually-hidden">Audit log, newest first</caption>
            <thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">What</th><th scope="col">Target</th><th scope="col">Before</th><th scope="col">After</th></tr></thead><tbody>
            {{#entries}}<tr><td>{{at}}</td><td>{{actor}}</td><td>{{action}}</td><td>{{target}}</td><td><code>{{before}}</code></td><td><code>{{after}}</code></td></tr>
            {{/entries}}</tbody></table></div>{{/none}}
            {{> console-pager}}
            {{> end}}
            """,
    ]
}
