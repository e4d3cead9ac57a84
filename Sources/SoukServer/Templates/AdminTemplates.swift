/// The admin pages' templates (merged into `Pages`; names must not clash with other groups').
/// Each starts with `{{> start}}` (or `{{> start-plain}}`) and ends with `{{> end}}`; console pages
/// put `{{> console-nav}}` first in `main`. Actions an operator's role alone may take are inside
/// `{{#isOperator}}`, so support never sees them (their POSTs answer 403 as well); the person page's
/// actions show where SoukCore's `StaffScope` allows them (`{{#canDisable}}`, `{{#canReset}}` …).
enum AdminTemplates {
    static let all: [String: String] = [
        "console-nav": """
            <nav class="console" aria-label="Console">
            {{^mustEnrol}}<a href="/admin">Dashboard</a> <a href="/admin/apps">Apps</a> <a href="/admin/catalog">Catalogs</a> <a href="/admin/review">Review</a> <a href="/admin/people">People</a> <a href="/admin/metrics">Metrics</a>
            <a href="/admin/integrations">Integrations</a> <a href="/admin/clients">Clients</a> <a href="/admin/audit">Audit log</a>
            {{/mustEnrol}}<a href="/admin/security">Two-factor sign-in</a> <span class="muted">{{operatorEmail}} · {{role}}</span>
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
            <p class="muted">As of {{asOf}} (the figures are read at most once a minute).</p>
            <dl class="facts">{{#counts}}<dt>{{label}}</dt><dd>{{value}}</dd>
            {{/counts}}</dl>
            <h2>The last 30 days</h2>
            {{#charts}}<figure class="chart-box">{{{svg}}}
            <details><summary>{{title}} as a table</summary><div class="table-wrap" tabindex="0"><table id="{{id}}"><caption class="visually-hidden">{{title}}, per day</caption>
            <thead><tr><th scope="col">Day</th><th scope="col">Value</th></tr></thead><tbody>{{#rows}}<tr><td>{{label}}</td><td>{{value}}</td></tr>{{/rows}}</tbody></table></div></details>
            {{#note}}<p class="muted">{{note}}</p>{{/note}}
            {{#hasPerItem}}<h3>Revenue per app and plan</h3><div class="table-wrap" tabindex="0"><table><caption class="visually-hidden">Revenue per app and plan, last 30 days</caption>
            <thead><tr><th scope="col">App or plan</th><th scope="col">Revenue</th></tr></thead><tbody>{{/hasPerItem}}{{#perItem}}<tr><td>{{item}}</td><td>{{amount}}</td></tr>{{/perItem}}{{#hasPerItem}}</tbody></table></div>{{/hasPerItem}}
            </figure>{{/charts}}
            <h2>Recent changes</h2>
            {{#has-recent}}<div class="table-wrap" tabindex="0"><table><caption class="visually-hidden">The last ten changes</caption>
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
            <form method="get" action="/admin/app-store-orders" role="search">
            <label for="order-id">App Store order id (from the customer's receipt)</label>
            <input id="order-id" name="order" type="text" autocomplete="off">
            <label for="order-app">App (bundle id)</label>
            <input id="order-app" name="app" type="text" autocomplete="off">
            <button type="submit">Look up</button>
            </form>
            {{#none}}<p class="muted">No account matches.</p>{{/none}}
            {{^none}}<div class="table-wrap" tabindex="0"><table><caption class="visually-hidden">Accounts</caption>
            <thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Status</th><th scope="col">Created</th></tr></thead><tbody>
            {{#people}}<tr><td><a href="/admin/people/{{id}}">{{email}}</a></td><td>{{role}}</td><td>{{status}}</td><td>{{created}}</td></tr>
            {{/people}}</tbody></table></div>{{/none}}
            {{> console-pager}}
            {{> end}}
            """,
        "admin-app-store-order": """
            {{> start}}
            {{> console-nav}}
            <h1>App Store order {{order}}</h1>
            {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
            <form method="get" action="/admin/app-store-orders" role="search">
            <label for="order-id">App Store order id (from the customer's receipt)</label>
            <input id="order-id" name="order" type="text" value="{{order}}" autocomplete="off">
            <label for="order-app">App (bundle id)</label>
            <input id="order-app" name="app" type="text" value="{{app}}" autocomplete="off">
            <button type="submit">Look up</button>
            </form>
            {{#unknown}}<p class="muted">Apple knows no such order.</p>{{/unknown}}
            {{#has-transactions}}<div class="table-wrap" tabindex="0"><table><caption class="visually-hidden">The order's purchases</caption>
            <thead><tr><th scope="col">Transaction</th><th scope="col">Product</th><th scope="col">Purchased</th><th scope="col">Account</th><th scope="col">Status</th></tr></thead><tbody>
            {{#transactions}}<tr><td>{{transaction}}</td><td>{{product}}</td><td>{{purchased}}</td>
            <td>{{#person}}<a href="/admin/people/{{person}}">{{email}}</a>{{/person}}{{^person}}never reported to Souk{{/person}}</td><td>{{status}}</td></tr>
            {{/transactions}}</tbody></table></div>{{/has-transactions}}
            {{> end}}
            """,
        "admin-person": """
            {{> start}}
            {{> console-nav}}
            <h1>{{email}}</h1>
            {{#notice}}<p class="notice" role="status">{{notice}}</p>{{/notice}}
            {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
            {{#resetLink}}<p class="notice" role="status">Reset link, shown once (give it to the person; it works once, until {{expires}}):
            <code id="reset-link">{{url}}</code></p>{{/resetLink}}
            <dl class="facts"><dt>Account id</dt><dd><code>{{id}}</code></dd><dt>Role</dt><dd>{{personRole}}</dd>
            <dt>Status</dt><dd>{{status}}</dd><dt>Purchases in</dt><dd>{{environment}}</dd><dt>Created</dt><dd>{{created}}</dd>
            <dt>Two-factor sign-in</dt><dd>{{twoFactor}}</dd></dl>
            {{#canDisable}}<form method="post" action="/admin/people/{{id}}/{{#disabled}}enable{{/disabled}}{{^disabled}}disable{{/disabled}}" class="inline">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}">
            {{#disabled}}<button type="submit" class="secondary">Enable account</button>{{/disabled}}{{^disabled}}<button type="submit" class="danger">Disable account</button>{{/disabled}}
            </form>{{/canDisable}}
            {{#canSignOut}}<form method="post" action="/admin/people/{{id}}/sign-out" class="inline">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <button type="submit" class="secondary">Sign out everywhere</button>
            </form>{{/canSignOut}}
            <h2>Timeline</h2>
            <details open><summary>The latest {{timelineCount}} events, newest first</summary>
            <ol class="timeline">{{#timeline}}<li><span class="muted">{{at}}</span> <span class="tag">{{kind}}</span> {{text}}</li>{{/timeline}}</ol>
            </details>
            <h2>Devices</h2>
            {{^devices}}<p class="muted">No signed-in devices.</p>{{/devices}}
            {{#has-devices}}<div class="table-wrap" tabindex="0"><table><caption class="visually-hidden">Devices</caption>
            <thead><tr><th scope="col">Device</th><th scope="col">Signed in</th><th scope="col">Last used</th></tr></thead><tbody>{{/has-devices}}
            {{#devices}}<tr><td>{{clientId}}</td><td>{{signedIn}}</td><td>{{lastUsed}}</td></tr>{{/devices}}
            {{#has-devices}}</tbody></table></div>{{/has-devices}}
            <h2>Live licenses</h2>
            {{^licenses}}<p class="muted">No live licenses.</p>{{/licenses}}
            {{#has-licenses}}<div class="table-wrap" tabindex="0"><table><caption class="visually-hidden">Live licenses</caption>
            <thead><tr><th scope="col">License</th><th scope="col">App</th><th scope="col">Device</th><th scope="col">Expires</th></tr></thead><tbody>{{/has-licenses}}
            {{#licenses}}<tr><td>{{license}}</td><td>{{app}}</td><td>{{device}}</td><td>{{expires}}</td></tr>{{/licenses}}
            {{#has-licenses}}</tbody></table></div>{{/has-licenses}}
            <h2>In-app purchases</h2>
            {{^purchases}}<p class="muted">No in-app purchases.</p>{{/purchases}}
            {{#has-purchases}}<div class="table-wrap" tabindex="0"><table><caption class="visually-hidden">In-app purchases</caption>
            <thead><tr><th scope="col">App</th><th scope="col">Product</th><th scope="col">Store</th><th scope="col">Status</th><th scope="col">Date</th><th scope="col">Revoked</th></tr></thead><tbody>{{/has-purchases}}
            {{#purchases}}<tr><td>{{app}}</td><td>{{product}}</td><td>{{store}}</td><td>{{status}}{{#refundable}}
            <form method="post" action="/admin/people/{{person}}/purchases/{{payment}}/refund" class="inline"><input type="hidden" name="csrf_token" value="{{csrfToken}}">
            {{#subscription}}<label><input type="checkbox" name="prorated" value="on"> unused time only</label> {{/subscription}}<button type="submit" class="secondary">Refund at Google Play<span class="visually-hidden"> {{product}}</span></button></form>{{/refundable}}</td><td>{{date}}</td><td>{{revoked}}</td></tr>{{/purchases}}
            {{#has-purchases}}</tbody></table></div>{{/has-purchases}}
            <h2>Marketplace orders</h2>
            {{^orders}}<p class="muted">No marketplace orders.</p>{{/orders}}
            {{#has-orders}}<div class="table-wrap" tabindex="0"><table><caption class="visually-hidden">Marketplace orders</caption>
            <thead><tr><th scope="col">App</th><th scope="col">Price</th><th scope="col">Status</th><th scope="col">Date</th><th scope="col">Processor</th></tr></thead><tbody>{{/has-orders}}
            {{#orders}}<tr><td>{{app}}</td><td>{{price}}</td><td>{{status}}{{#refundable}}
            <form method="post" action="/admin/people/{{person}}/orders/{{order}}/refund" class="inline"><input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <button type="submit" class="secondary">Refund {{price}}<span class="visually-hidden"> for app {{app}}</span></button></form>{{/refundable}}</td><td>{{date}}</td><td>{{processor}}</td></tr>{{/orders}}
            {{#has-orders}}</tbody></table></div>{{/has-orders}}
            <h2>Membership plans</h2>
            {{^plans}}<p class="muted">No membership plans.</p>{{/plans}}
            {{#has-plans}}<div class="table-wrap" tabindex="0"><table><caption class="visually-hidden">Membership plans</caption>
            <thead><tr><th scope="col">Plan</th><th scope="col">Price</th><th scope="col">Status</th><th scope="col">Started</th><th scope="col">Processor</th></tr></thead><tbody>{{/has-plans}}
            {{#plans}}<tr><td>{{product}}</td><td>{{price}}</td><td>{{status}}{{#refundable}}
            <form method="post" action="/admin/people/{{person}}/plans/{{id}}/refund" class="inline"><input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <button type="submit" class="secondary">Refund<span class="visually-hidden"> plan {{product}}</span></button></form>{{/refundable}}</td><td>{{started}}</td><td>{{processor}}</td></tr>{{/plans}}
            {{#has-plans}}</tbody></table></div>{{/has-plans}}
            <h2>Promotional entitlements</h2>
            {{^grants}}<p class="muted">No grants.</p>{{/grants}}
            {{#has-grants}}<div class="table-wrap" tabindex="0"><table><caption class="visually-hidden">Promotional grants</caption>
            <thead><tr><th scope="col">App</th><th scope="col">Entitlement</th><th scope="col">Environment</th><th scope="col">From</th><th scope="col">Until</th><th scope="col">Reason</th><th scope="col">State</th></tr></thead><tbody>{{/has-grants}}
            {{#grants}}<tr><td>{{app}}</td><td>{{entitlement}}</td><td>{{environment}}</td><td>{{starts}}</td><td>{{until}}</td><td>{{reason}}</td>
            <td>{{state}}{{#revocable}}<form method="post" action="/admin/people/{{person}}/grants/{{id}}/revoke" class="inline">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}"> <button type="submit" class="secondary">Revoke<span class="visually-hidden"> {{entitlement}} in {{app}}</span></button></form>{{/revocable}}</td></tr>
            {{/grants}}{{#has-grants}}</tbody></table></div>{{/has-grants}}
            {{#canGrant}}<h3>Grant an entitlement</h3>
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
            </form>{{/canGrant}}
            {{#canExtend}}<h3>Extend App Store subscriptions</h3>
            <p>Asks Apple to move the renewal date of each active App Store subscription of the person in the app; access follows at once.</p>
            <form method="post" action="/admin/people/{{id}}/extend-subscriptions">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <label for="extend-app">App (bundle id)</label>
            <select id="extend-app" name="app" required>{{#apps}}<option value="{{app}}">{{app}}</option>{{/apps}}</select>
            <label for="extend-days">Days (1 to 90)</label>
            <input id="extend-days" name="days" type="number" min="1" max="90" required>
            <label for="extend-reason">Reason</label>
            <select id="extend-reason" name="reason"><option value="3">Service issue or outage</option><option value="1">Customer satisfaction</option>
            <option value="2">Other</option><option value="0">Undeclared</option></select>
            <button type="submit" class="secondary">Extend</button>
            </form>{{/canExtend}}
            {{#canReset}}<h3>Reset password</h3>
            <p>Makes a link, shown once, where the person chooses a new password within 24 hours. The account is signed out
            everywhere and its old password stops working at once.</p>
            <form method="post" action="/admin/people/{{id}}/reset-password">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <button type="submit" class="secondary">Make a reset link and sign out everywhere</button>
            </form>{{/canReset}}
            {{> end}}
            """,
        "admin-apps": """
            {{> start}}
            {{> console-nav}}
            <h1>Apps</h1>
            {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
            <form method="get" action="/admin/apps" role="search">
            <label for="apps-q">Name, bundle id or AppleItemID</label>
            <input id="apps-q" name="q" type="text" value="{{query}}" autocomplete="off">
            <button type="submit">Search</button>
            </form>
            {{#none}}<p class="muted">No app matches.</p>{{/none}}
            {{^none}}<div class="table-wrap" tabindex="0"><table><caption class="visually-hidden">Apps</caption>
            <thead><tr><th scope="col">Name</th><th scope="col">AppleItemID</th><th scope="col">Bundle id</th><th scope="col">Access</th><th scope="col">Availability</th></tr></thead><tbody>
            {{#apps}}<tr><td><a href="/admin/apps/{{id}}">{{name}}</a></td><td>{{id}}</td><td>{{bundleId}}</td><td>{{access}}</td><td>{{availability}}</td></tr>
            {{/apps}}</tbody></table></div>{{/none}}
            {{> console-pager}}
            {{#isOperator}}<h2>Add an app</h2>
            <form method="post" action="/admin/apps">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}">
            {{#entered}}<label for="new-item">AppleItemID</label>
            <input id="new-item" name="appleItemId" type="text" inputmode="numeric" required value="{{appleItemId}}">
            <label for="new-bundle">Bundle id</label>
            <input id="new-bundle" name="bundleId" type="text" required value="{{bundleId}}" autocomplete="off">
            <label for="new-name">Name</label>
            <input id="new-name" name="name" type="text" required value="{{name}}" autocomplete="off">
            <label for="new-developer">Developer</label>
            <input id="new-developer" name="developer" type="text" value="{{developer}}" autocomplete="organization">{{/entered}}
            <label for="new-access">Who may install it</label>
            <select id="new-access" name="access"><option value="public">Anyone (public)</option><option value="account">Signed-in accounts</option></select>
            <button type="submit">Add app</button>
            </form>{{/isOperator}}
            {{> end}}
            """,
        "admin-app": """
            {{> start}}
            {{> console-nav}}
            <h1>{{name}}</h1>
            {{#notice}}<p class="notice" role="status">{{notice}}</p>{{/notice}}
            {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
            {{#operatorFacts}}<dl class="facts"><dt>AppleItemID</dt><dd>{{id}}</dd><dt>Bundle id</dt><dd>{{bundleId}}</dd><dt>Developer</dt><dd>{{developer}}</dd>
            <dt>Access</dt><dd>{{access}}</dd><dt>Price</dt><dd>{{price}}</dd><dt>Availability</dt><dd>{{availability}}{{#takedownReason}} ({{takedownReason}}){{/takedownReason}}</dd></dl>
            <p><a href="{{storefrontURL}}">See it in the storefront</a></p>{{/operatorFacts}}
            {{> console-app}}
            {{#canEdit}}{{#operatorFacts}}<h2>Availability</h2>
            <form method="post" action="{{path}}/{{#available}}takedown{{/available}}{{^available}}reinstate{{/available}}">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}">
            {{#available}}<p>Taking the app down stops its installs, updates and package downloads at once; devices get 404 failures.</p>
            <label for="takedown-reason">Reason (for the record)</label>
            <input id="takedown-reason" name="reason" type="text" autocomplete="off">
            <button type="submit" class="danger">Take the app down</button>{{/available}}
            {{^available}}<button type="submit">Make the app available again</button>{{/available}}
            </form>{{/operatorFacts}}{{/canEdit}}
            {{> end}}
            """,
        "console-app": """
            <h2>Media</h2>
            {{#icon}}<p><img src="{{src}}" alt="{{alt}}" width="96" height="96" class="thumb"></p>{{/icon}}{{^icon}}<p class="muted">No icon yet.</p>{{/icon}}
            {{#screenshots}}<h3>{{family}}</h3><ul class="screens" tabindex="0" aria-label="{{family}} screenshots">{{#images}}<li><img src="{{src}}" alt="{{alt}}" class="thumb"></li>{{/images}}</ul>{{/screenshots}}
            {{#canEdit}}<form method="post" action="{{path}}/media" enctype="multipart/form-data" class="upload">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <label for="media-icon">Icon (a square PNG)</label>
            <input id="media-icon" name="icon" type="file" accept="image/png">
            <label for="media-iphone">iPhone screenshots (PNGs, in order; replace the current ones)</label>
            <input id="media-iphone" name="iphone" type="file" accept="image/png" multiple>
            <label for="media-ipad">iPad screenshots</label>
            <input id="media-ipad" name="ipad" type="file" accept="image/png" multiple>
            <progress max="1" value="0" hidden aria-label="Media upload progress"></progress> <span role="status"></span>
            <button type="submit">Upload media</button>
            </form>{{/canEdit}}
            <h2>Storefront text</h2>
            {{#canEdit}}<form method="post" action="{{path}}/details" class="wide">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <label for="app-subtitle">Subtitle</label>
            <input id="app-subtitle" name="subtitle" type="text" maxlength="80" value="{{subtitle}}" autocomplete="off">
            <label for="app-category">Category</label>
            <select id="app-category" name="category"><option value="">None</option>{{#categories}}<option value="{{slug}}"{{#selected}} selected{{/selected}}>{{name}}</option>{{/categories}}</select>
            <label for="app-description">Description</label>
            <textarea id="app-description" name="description" rows="6">{{description}}</textarea>
            <label for="app-whats-new">What's new</label>
            <textarea id="app-whats-new" name="whatsNew" rows="3">{{whatsNew}}</textarea>
            <button type="submit">Save text</button>
            </form>{{/canEdit}}{{^canEdit}}<dl class="facts"><dt>Subtitle</dt><dd>{{subtitle}}</dd><dt>Description</dt><dd>{{description}}</dd><dt>What's new</dt><dd>{{whatsNew}}</dd></dl>{{/canEdit}}
            {{#canEdit}}<h2>Upload a package</h2>
            <p>A zip with <code>manifest.json</code>, <code>signature</code>, <code>variant/</code> and <code>delta/</code> — checked like <code>souk packages import</code> (at most {{maxPackageMiB}} MiB).{{#reviewNote}} A new version is in review until the marketplace approves it.{{/reviewNote}}</p>
            <form method="post" action="{{path}}/packages" enctype="multipart/form-data" class="upload">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <label for="package-file">Package (.zip)</label>
            <input id="package-file" name="package" type="file" accept=".zip,application/zip" required>
            <progress max="1" value="0" hidden aria-label="Package upload progress"></progress> <span role="status"></span>
            <button type="submit">{{uploadButton}}</button>
            </form>{{/canEdit}}
            <h2>Versions</h2>
            {{^versions}}<p class="muted">No versions yet.</p>{{/versions}}
            {{#has-versions}}<div class="table-wrap" tabindex="0"><table><caption class="visually-hidden">Versions, newest first</caption>
            <thead><tr><th scope="col">Version</th><th scope="col">Build</th><th scope="col">AppleVersionID</th><th scope="col">Uploaded</th><th scope="col">State</th></tr></thead><tbody>{{/has-versions}}
            {{#versions}}<tr><td>{{short}}</td><td>{{build}}</td><td>{{version}}</td><td>{{uploaded}}</td><td><span class="version-state">{{state}}</span>
            {{#canEdit}}<form method="post" action="{{path}}/versions/{{version}}/{{#withdrawn}}reinstate{{/withdrawn}}{{^withdrawn}}withdraw{{/withdrawn}}" class="inline">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}">
            {{#withdrawn}}<button type="submit" class="secondary">Offer again<span class="visually-hidden"> version {{short}}</span></button>{{/withdrawn}}
            {{^withdrawn}}<label for="reason-{{version}}" class="visually-hidden">Reason for withdrawing {{short}}</label><input id="reason-{{version}}" name="reason" type="text" placeholder="Reason (optional)" class="short">
            <button type="submit" class="secondary">Withdraw<span class="visually-hidden"> version {{short}}</span></button>{{/withdrawn}}
            </form>{{/canEdit}}</td></tr>
            {{/versions}}{{#has-versions}}</tbody></table></div>{{/has-versions}}
            """,
        "admin-catalogs": """
            {{> start}}
            {{> console-nav}}
            <h1>Catalogs</h1>
            <p>Each app's in-app products and entitlements (<code>souk catalog apply</code> writes the same catalogs).</p>
            {{^catalogs}}<p class="muted">No app has a product catalog yet.</p>{{/catalogs}}
            {{#has-catalogs}}<div class="table-wrap" tabindex="0"><table><caption class="visually-hidden">Product catalogs</caption>
            <thead><tr><th scope="col">App</th><th scope="col">Revision</th><th scope="col">On sale</th><th scope="col">Retired</th><th scope="col">Changed</th></tr></thead><tbody>{{/has-catalogs}}
            {{#catalogs}}<tr><td><a href="/admin/catalog/{{app}}">{{app}}</a></td><td>{{revision}}</td><td>{{onSale}}</td><td>{{retired}}</td><td>{{modified}}</td></tr>
            {{/catalogs}}{{#has-catalogs}}</tbody></table></div>{{/has-catalogs}}
            {{> end}}
            """,
        "admin-catalog": """
            {{> start}}
            {{> console-nav}}
            {{> console-catalog}}
            {{#isOperator}}<p>Edit the file, then review what applying it would change. Products left out are retired.</p>
            {{> console-catalog-form}}{{/isOperator}}{{^isOperator}}<pre>{{text}}</pre>{{/isOperator}}
            {{> end}}
            """,
        // The two consoles' catalog page (`CatalogEditorPage`), under their own navigation: the
        // revision, the console's links, the products on sale and the entitlements.
        "console-catalog": """
            <h1>Catalog of {{app}}</h1>
            {{#notice}}<p class="notice" role="status">{{notice}}</p>{{/notice}}
            {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
            <p>Revision {{revision}}.{{#retired}} Retired (off sale, ids never reused): {{retired}}.{{/retired}}</p>
            <ul class="chips">{{#links}}<li><a href="{{href}}">{{label}}</a></li>{{/links}}</ul>
            <h2>Products</h2>
            {{^products}}<p class="muted">No product on sale.</p>{{/products}}
            {{#has-products}}<div class="table-wrap" tabindex="0"><table><caption class="visually-hidden">Products on sale, in catalog order</caption>
            <thead><tr><th scope="col">Product</th><th scope="col">Type</th><th scope="col">Title</th><th scope="col">Prices</th><th scope="col">Entitlements</th></tr></thead><tbody>{{/has-products}}
            {{#products}}<tr><td>{{#href}}<a href="{{href}}">{{id}}</a>{{/href}}{{^href}}{{id}}{{/href}}</td><td>{{type}}</td><td>{{title}}</td><td>{{prices}}</td><td>{{entitlements}}</td></tr>
            {{/products}}{{#has-products}}</tbody></table></div>{{/has-products}}
            <h2>Entitlements</h2>
            {{^entitlements}}<p class="muted">None.</p>{{/entitlements}}<ul>{{#entitlements}}<li><code>{{id}}</code></li>{{/entitlements}}</ul>
            <h2>Catalog file</h2>
            """,
        // The catalog file's form of both consoles' catalog page.
        "console-catalog-form": """
            <form method="post" action="{{action}}">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <label for="catalog-text">Catalog (JSON, the format of <code>souk catalog show</code>)</label>
            <textarea id="catalog-text" name="catalog" rows="24" spellcheck="false" class="code">{{text}}</textarea>
            <button type="submit">Review changes</button>
            </form>
            """,
        "admin-product": """
            {{> start}}
            {{> console-nav}}
            <h1>{{productId}}</h1>
            <p>In the catalog of <a href="{{catalogHref}}">{{app}}</a>.</p>
            {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
            {{#isOperator}}<form method="post" action="{{action}}">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <label for="product-text">Product (JSON, as in the catalog file)</label>
            <textarea id="product-text" name="product" rows="20" spellcheck="false" class="code">{{text}}</textarea>
            <button type="submit">Review changes</button>
            </form>{{/isOperator}}{{^isOperator}}<pre>{{text}}</pre>{{/isOperator}}
            {{> end}}
            """,
        "admin-catalog-review": """
            {{> start}}
            {{> console-nav}}
            {{> console-catalog-review}}
            {{> end}}
            """,
        // The two consoles' catalog review (`CatalogReviewPage`), under their own navigation.
        "console-catalog-review": """
            <h1>Review changes to {{app}}</h1>
            {{#unchanged}}<p class="notice" role="status">No change: the catalog already is what you sent.</p>
            <p><a href="{{catalogHref}}">Back to the catalog</a></p>{{/unchanged}}
            {{^unchanged}}<p>Applying makes these changes to revision {{revision}}{{#namesCommand}}, as <code>souk catalog apply</code> would{{/namesCommand}}:</p>
            <pre class="diff">{{#lines}}{{#added}}<ins>{{text}}</ins>{{/added}}{{#removed}}<del>{{text}}</del>{{/removed}}{{^added}}{{^removed}}<span>{{text}}</span>{{/removed}}{{/added}}
            {{/lines}}</pre>
            {{#has-fileLines}}<h2>The catalog file, line by line</h2>
            <p class="muted">Removed lines are struck through and marked −, added lines are marked +; “…” folds unchanged lines.</p>{{/has-fileLines}}
            {{#has-fileLines}}<pre class="diff">{{/has-fileLines}}{{#fileLines}}{{#added}}<ins>+ {{text}}</ins>{{/added}}{{#removed}}<del>− {{text}}</del>{{/removed}}{{^added}}{{^removed}}<span>  {{text}}</span>{{/removed}}{{/added}}
            {{/fileLines}}{{#has-fileLines}}</pre>{{/has-fileLines}}
            <form method="post" action="{{action}}">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <input type="hidden" name="review" value="{{review}}">
            <input type="hidden" name="catalog" value="{{text}}">
            <button type="submit">Apply these changes</button> <a href="{{catalogHref}}" class="button secondary">Cancel</a>
            </form>{{/unchanged}}
            """,
        "admin-catalog-too-large": """
            {{> start}}
            {{> console-nav}}
            <h1>Catalog too large</h1>
            <p class="error" role="alert">The catalog you sent is larger than {{limit}}, the most the console's editor takes. Nothing was reviewed or applied.</p>
            <p>Go back to shorten it, or apply a larger file from the operator's shell with <code>souk catalog apply</code>.</p>
            <p><a href="{{catalogHref}}">Back to the catalog</a></p>
            {{> end}}
            """,
        "admin-clients": """
            {{> start}}
            {{> console-nav}}
            <h1>OAuth clients</h1>
            {{#notice}}<p class="notice" role="status">{{notice}}</p>{{/notice}}
            {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
            <p>Apps and TVs that sign people in with their own client_id. MarketplaceKit's devices need no registration.</p>
            {{^clients}}<p class="muted">No client registered yet.</p>{{/clients}}
            {{#has-clients}}<div class="table-wrap" tabindex="0"><table><caption class="visually-hidden">Registered OAuth clients</caption>
            <thead><tr><th scope="col">Name</th><th scope="col">Kind</th><th scope="col">client_id</th><th scope="col">Tokens act for</th><th scope="col">Redirect URIs</th><th scope="col">Registered</th>{{#isOperator}}<th scope="col">Remove</th>{{/isOperator}}</tr></thead><tbody>{{/has-clients}}
            {{#clients}}<tr><td>{{name}}</td><td>{{kind}}</td><td><code>{{clientId}}</code></td><td>{{app}}</td><td>{{redirectURIs}}</td><td>{{created}}</td>
            {{#isOperator}}<td><form method="post" action="/admin/clients/remove" class="inline"><input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <input type="hidden" name="client_id" value="{{clientId}}">
            <button type="submit" class="secondary">Remove<span class="visually-hidden"> {{name}}</span></button></form></td>{{/isOperator}}</tr>{{/clients}}
            {{#has-clients}}</tbody></table></div>{{/has-clients}}
            {{#isOperator}}<h2>Register a client</h2>
            <form method="post" action="/admin/clients" class="wide">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <label for="client-name">Name</label>
            <input id="client-name" name="name" type="text" required maxlength="100" value="{{formName}}">
            <label for="client-kind">Kind</label>
            <select id="client-kind" name="kind">{{#kinds}}<option value="{{kind}}"{{#selected}} selected{{/selected}}>{{kind}}</option>{{/kinds}}</select>
            <label for="client-redirects">Redirect URIs, one per line (none for a tv client)</label>
            <textarea id="client-redirects" name="redirect_uris" rows="3">{{formRedirectURIs}}</textarea>
            <label for="client-app">Bind tokens to app (bundle id; empty: any)</label>
            <input id="client-app" name="app" type="text" value="{{formApp}}">
            <button type="submit">Register</button>
            </form>{{/isOperator}}
            {{> end}}
            """,
        "admin-integrations": """
            {{> start}}
            {{> console-nav}}
            <h1>Integrations</h1>
            {{#notice}}<p class="notice" role="status">{{notice}}</p>{{/notice}}
            {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
            {{#publicKey}}<p>Public key to register in App Store Connect:</p><pre>{{publicKey}}</pre>{{/publicKey}}
            <h2>App Store Connect events</h2>
            {{^ascEvents}}<p class="muted">No event received yet.</p>{{/ascEvents}}
            {{#has-ascEvents}}<div class="table-wrap" tabindex="0"><table><caption class="visually-hidden">The latest App Store Connect events</caption>
            <thead><tr><th scope="col">Received</th><th scope="col">Type</th><th scope="col">State</th><th scope="col">Attempts</th><th scope="col">Last error</th></tr></thead><tbody>{{/has-ascEvents}}
            {{#ascEvents}}<tr><td>{{received}}</td><td>{{type}}</td><td>{{state}}</td><td>{{attempts}}</td><td>{{error}}</td></tr>{{/ascEvents}}
            {{#has-ascEvents}}</tbody></table></div>{{/has-ascEvents}}
            <h2>Stores</h2>
            {{^stores}}<p class="muted">No store has been asked anything yet.</p>{{/stores}}
            {{#has-stores}}<div class="table-wrap" tabindex="0"><table><caption class="visually-hidden">Each app's stores: last answer and last error</caption>
            <thead><tr><th scope="col">App</th><th scope="col">Store</th><th scope="col">State</th><th scope="col">Last answer</th><th scope="col">Last error</th></tr></thead><tbody>{{/has-stores}}
            {{#stores}}<tr><td>{{app}}</td><td>{{store}}</td><td>{{state}}</td><td>{{ok}}</td><td>{{error}}</td></tr>{{/stores}}
            {{#has-stores}}</tbody></table></div>{{/has-stores}}
            {{#has-apps}}<form method="get" action="/admin/integrations">
            <label for="integrations-app">Notifications and webhooks of</label>
            <select id="integrations-app" name="app">{{#apps}}<option value="{{app}}"{{#selected}} selected{{/selected}}>{{app}}</option>{{/apps}}</select>
            <button type="submit" class="secondary">Show</button>
            </form>{{/has-apps}}
            {{#app}}<h2>Store notifications of {{app}}</h2>
            {{^notifications}}<p class="muted">None received.</p>{{/notifications}}
            {{#has-notifications}}<div class="table-wrap" tabindex="0"><table><caption class="visually-hidden">The latest store notifications</caption>
            <thead><tr><th scope="col">Received</th><th scope="col">Store</th><th scope="col">Type</th><th scope="col">Environment</th><th scope="col">Status</th><th scope="col">Result</th></tr></thead><tbody>{{/has-notifications}}
            {{#notifications}}<tr><td>{{received}}</td><td>{{store}}</td><td>{{type}}</td><td>{{environment}}</td><td>{{status}}</td><td>{{summary}}</td></tr>{{/notifications}}
            {{#has-notifications}}</tbody></table></div>{{/has-notifications}}
            <h2>Webhook deliveries of {{app}}</h2>
            {{^deliveries}}<p class="muted">No delivery yet.</p>{{/deliveries}}
            {{#has-deliveries}}<div class="table-wrap" tabindex="0"><table><caption class="visually-hidden">The latest webhook deliveries</caption>
            <thead><tr><th scope="col">Event</th><th scope="col">Type</th><th scope="col">Endpoint</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Last answer</th><th scope="col">Redeliver</th></tr></thead><tbody>{{/has-deliveries}}
            {{#deliveries}}<tr><td>{{created}}</td><td>{{type}}</td><td>{{url}}</td><td>{{status}}</td><td>{{attempts}}</td><td>{{last}}</td>
            <td><form method="post" action="/admin/integrations/redeliver" class="inline"><input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <input type="hidden" name="app" value="{{app}}"><input type="hidden" name="event" value="{{event}}">
            <button type="submit" class="secondary">Redeliver<span class="visually-hidden"> event {{event}}</span></button></form></td></tr>{{/deliveries}}
            {{#has-deliveries}}</tbody></table></div>{{/has-deliveries}}{{/app}}
            <h2>Install verification keys</h2>
            <div class="table-wrap" tabindex="0"><table><caption class="visually-hidden">Published install verification keys</caption>
            <thead><tr><th scope="col">Owner</th><th scope="col">Key id</th><th scope="col">Created</th><th scope="col">State</th></tr></thead><tbody>
            {{#keys}}<tr><td>{{owner}}</td><td><code>{{kid}}</code></td><td>{{created}}</td><td>{{state}}</td></tr>{{/keys}}
            </tbody></table></div>
            {{#isOperator}}<form method="post" action="/admin/integrations/keys/rotate">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <p>Rotating makes a new key that signs from now on; the old one stays published until the tokens it signed have expired.</p>
            <button type="submit" class="secondary">Rotate the marketplace's key</button>
            </form>{{/isOperator}}
            {{> end}}
            """,
        "admin-security": """
            {{> start}}
            {{> console-nav}}
            {{> console-two-factor}}
            {{> end}}
            """,
        "admin-recovery-codes": """
            {{> start}}
            {{> console-nav}}
            {{> console-recovery-codes}}
            {{> end}}
            """,
        // The two consoles' two-factor enrolment and recovery codes, under their own navigation:
        // `consoleBase` is `/admin` or `/developer`, `enrolNotice` says why enrolment is required,
        // `offHint` (and an optional `offCommand`) how to turn it off.
        "console-two-factor": """
            <h1>Two-factor sign-in</h1>
            {{#mustEnrol}}<p class="notice" role="status">{{enrolNotice}}</p>{{/mustEnrol}}
            {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
            {{#enabled}}<p class="notice" role="status">Two-factor sign-in is on: signing in to the console asks for a code after the password.</p>
            <p>Unused recovery codes: {{unusedRecoveryCodes}}. {{offHint}}{{#offCommand}} <code>{{offCommand}}</code>.{{/offCommand}}</p>{{/enabled}}
            {{^enabled}}<p>Add this account to an authenticator app (RFC 6238: SHA-1, 6 digits, 30 seconds), then enter the code it shows to turn two-factor sign-in on.</p>
            <h2>Setup key</h2>
            <p>URI: <code>{{uri}}</code></p>
            <p>Secret (base32): <code>{{secret}}</code></p>
            <form method="post" action="{{consoleBase}}/security/confirm">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <label for="totp-code">Code from the app</label>
            <input id="totp-code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" required>
            <button type="submit">Turn on two-factor sign-in</button>
            </form>{{/enabled}}
            """,
        "console-recovery-codes": """
            <h1>Recovery codes</h1>
            <p class="notice" role="status">Two-factor sign-in is on.</p>
            <p>Keep these ten codes somewhere safe: each signs in once in place of a code. They are shown only now.</p>
            <ul>{{#codes}}<li><code>{{.}}</code></li>{{/codes}}</ul>
            <p><a href="{{consoleBase}}">Continue to the console</a></p>
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
            {{^none}}<ol class="audit">{{#entries}}<li><p><strong>{{action}}</strong> of <code>{{target}}</code> by {{actor}} <span class="muted">{{at}}</span></p>
            <ul class="changes">{{#changes}}<li><code>{{field}}</code>: {{#hasBefore}}<del>{{before}}</del> → {{/hasBefore}}{{#hasAfter}}<ins>{{after}}</ins>{{/hasAfter}}{{^hasAfter}}<span class="muted">(removed)</span>{{/hasAfter}}</li>{{/changes}}</ul></li>
            {{/entries}}</ol>{{/none}}
            {{> console-pager}}
            {{> end}}
            """,
    ]
}
