/// The metrics page of both consoles (merged into `Pages`): the `metrics-page` partial (`MetricsPage`)
/// is what each console renders inside its own navigation, one template for both. The chart is the
/// dashboard's (`SVGChart`: no script, no style attribute) and the table beside it holds the same
/// numbers.
enum MetricsTemplates {
    static let all: [String: String] = [
        "metrics-page": """
            <h1>Metrics</h1>
            <p>The numbers of an app's subscriptions and sales, from the daily rollup: production unless the sandbox is chosen,
            days in UTC, money converted into {{reportingCurrency}} at the exchange rate in force on each day. A level (monthly recurring
            revenue, active subscriptions and trials) is its value at the end of each interval; the others are the sum of its days.
            Filter by one store, one product or one country at a time (country where known: purchases whose store did not say
            where they were made count in every number but a country's).</p>
            {{#noApps}}<p class="muted">No app has an in-app catalog yet: metrics are kept for the apps of in-app catalogs.</p>{{/noApps}}
            {{^noApps}}<form method="get" action="{{action}}" class="wide">
            <label for="metrics-app">App</label>
            <select id="metrics-app" name="app">{{#apps}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/apps}}</select>
            <label for="metrics-metric">Metric</label>
            <select id="metrics-metric" name="metric">{{#metrics}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/metrics}}</select>
            <label for="metrics-from">From (UTC day)</label>
            <input id="metrics-from" name="from" type="date" value="{{from}}" required>
            <label for="metrics-to">To (UTC day, included)</label>
            <input id="metrics-to" name="to" type="date" value="{{to}}" required>
            <label for="metrics-interval">Interval</label>
            <select id="metrics-interval" name="interval">{{#intervals}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/intervals}}</select>
            <label for="metrics-environment">Environment</label>
            <select id="metrics-environment" name="environment">{{#environments}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/environments}}</select>
            <label for="metrics-store">Store</label>
            <select id="metrics-store" name="store"><option value="">Every store</option>{{#stores}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/stores}}</select>
            <label for="metrics-product">Product</label>
            <select id="metrics-product" name="product"><option value="">Every product</option>{{#products}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/products}}</select>
            <label for="metrics-country">Country (where known)</label>
            <select id="metrics-country" name="country"><option value="">Every country</option>{{#countries}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/countries}}</select>
            <button type="submit">Show</button>
            </form>{{/noApps}}
            {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
            {{#chart}}<figure class="chart-box">{{{svg}}}
            <details open><summary>{{title}} as a table</summary><div class="table-wrap" tabindex="0"><table id="{{id}}"><caption class="visually-hidden">{{title}} ({{unit}})</caption>
            <thead><tr><th scope="col">{{periodHeader}}</th><th scope="col">{{valueHeader}}</th>{{#hasDetail}}<th scope="col">{{detailHeader}}</th>{{/hasDetail}}</tr></thead>
            <tbody>{{#rows}}<tr><td>{{label}}</td><td>{{value}}</td>{{#hasDetail}}<td>{{detail}}</td>{{/hasDetail}}</tr>{{/rows}}</tbody></table></div></details>
            {{#note}}<p class="muted">{{note}}</p>{{/note}}
            </figure>{{/chart}}
            {{#cohorts}}{{> metrics-cohorts}}{{/cohorts}}
            {{^noApps}}{{#exportAction}}<h2>Downloads</h2>
            <p>Every purchase or lifecycle event of an app recorded in a range of UTC days, its daily metrics over the range (in
            {{reportingCurrency}}), or its cohort table for the cohorts of the range's months, as CSV or JSON Lines (buyers by
            account token; the columns are in the documentation of exports).</p>
            <form method="get" action="{{exportAction}}" class="wide">
            <label for="export-app">App</label>
            <select id="export-app" name="app">{{#apps}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/apps}}</select>
            <label for="export-kind">What</label>
            <select id="export-kind" name="kind"><option value="purchases">Purchases</option><option value="events">Events</option><option value="metrics">Metrics</option><option value="cohorts">Cohorts</option></select>
            <label for="export-from">From (UTC day)</label>
            <input id="export-from" name="from" type="date" value="{{from}}" required>
            <label for="export-to">To (UTC day, included)</label>
            <input id="export-to" name="to" type="date" value="{{to}}" required>
            <label for="export-format">Format</label>
            <select id="export-format" name="format"><option value="csv">CSV</option><option value="jsonl">JSON Lines</option></select>
            <button type="submit">Download</button>
            </form>{{/exportAction}}{{/noApps}}
            """,
        "metrics-cohorts": """
            <h2 id="cohorts-heading">Retention by cohort</h2>
            <p>Each row is a cohort: the accounts whose first paid subscription period began in that month (UTC, production).
            Each column counts the months since; a cell is the share of the cohort's accounts with an active subscription at
            the end of that month (of the month not yet ended: today), darker the higher.</p>
            {{#empty}}<p class="muted">No account of this app has paid for a subscription in these twelve months (or the rollup has
            not computed the app yet).</p>{{/empty}}
            {{^empty}}<div class="table-wrap" tabindex="0" role="region" aria-labelledby="cohorts-heading"><table id="table-cohorts" class="cohorts">
            <caption>{{caption}}</caption>
            <thead><tr><th scope="col">Cohort</th><th scope="col">Accounts</th>{{#columns}}<th scope="col">{{label}}</th>{{/columns}}</tr></thead>
            <tbody>{{#rows}}<tr><th scope="row">{{cohort}}</th><td>{{accounts}}</td>{{#cells}}<td class="{{heat}}">{{text}}<span class="visually-hidden"> {{hidden}}</span></td>{{/cells}}</tr>{{/rows}}</tbody>
            </table></div>{{/empty}}
            """,
        "developer-metrics": """
            {{> start}}
            {{> developer-nav}}
            {{> metrics-page}}
            {{> end}}
            """,
        "admin-metrics": """
            {{> start}}
            {{> console-nav}}
            {{> metrics-page}}
            {{> end}}
            """,
    ]
}
