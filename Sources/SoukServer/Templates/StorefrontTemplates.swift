/// The storefront pages' templates (merged into `Pages`; names must not clash with other groups').
/// Each starts with `{{> start}}` (or `{{> start-plain}}`) and ends with `{{> end}}`; `card`,
/// `image` and `pager` are partials. Lists of apps are `<ul class="grid">` of cards; a card's icon
/// is decorative (`alt=""`, the name is beside it); the app page's icon says whose icon it is.
enum StorefrontTemplates {
    static let all: [String: String] = [
        "card": """
            <li class="card">{{#icon}}<img class="icon" src="{{src}}"{{#srcset}} srcset="{{srcset}}" sizes="64px"{{/srcset}} alt="" width="64" height="64">{{/icon}}
            <div><a href="{{url}}"><span class="name">{{name}}</span></a>{{#meta}}<span class="meta">{{meta}}</span>{{/meta}}<span class="meta">{{price}}</span></div></li>

            """,
        "pager": """
            {{#pager}}<nav class="pager" aria-label="Pages">{{#previous}}<a href="{{previous}}" rel="prev">← Previous page</a>{{/previous}}{{^previous}}<span></span>{{/previous}}
            <span>Page {{page}} of {{pages}}</span>
            {{#next}}<a href="{{next}}" rel="next">Next page →</a>{{/next}}{{^next}}<span></span>{{/next}}</nav>{{/pager}}
            """,
        "home": """
            {{> start}}
            <h1>{{marketplace}}</h1>
            {{^hasApps}}<p class="hint">No apps yet.</p>{{/hasApps}}
            {{#has-featured}}<h2>Featured</h2>
            <ul class="grid">{{#featured}}{{> card}}{{/featured}}</ul>{{/has-featured}}
            {{#has-newest}}<h2>New and updated</h2>
            <ul class="grid">{{#newest}}{{> card}}{{/newest}}</ul>{{/has-newest}}
            {{#has-categories}}<h2>Categories</h2>
            <ul class="chips">{{#categories}}<li><a href="{{url}}">{{name}} <span class="visually-hidden">({{count}} apps)</span></a></li>{{/categories}}</ul>{{/has-categories}}
            {{#hasApps}}<p><a href="/apps">See all {{total}} apps</a></p>{{/hasApps}}
            {{> end}}
            """,
        "catalog": """
            {{> start}}
            <h1>{{heading}}</h1>
            {{#summary}}<p class="hint">{{summary}}</p>{{/summary}}
            {{^has-apps}}<p class="hint">No apps yet.</p>{{/has-apps}}
            {{#has-apps}}<ul class="grid">{{#apps}}{{> card}}{{/apps}}</ul>{{/has-apps}}
            {{> pager}}
            {{#has-categories}}<h2>Categories</h2>
            <ul class="chips">{{#categories}}<li><a href="{{url}}">{{name}}</a></li>{{/categories}}</ul>{{/has-categories}}
            {{> end}}
            """,
        "search": """
            {{> start}}
            <h1>{{heading}}</h1>
            {{^query}}<p class="hint">Type a word in the search box above: an app's name, its developer, or what it does.</p>{{/query}}
            {{#query}}{{^has-apps}}<p class="hint" role="status">No apps match “{{query}}”. Check the spelling, try fewer words, or <a href="/apps">browse all apps</a>.</p>{{/has-apps}}
            {{#has-apps}}<p class="hint" role="status">{{summary}}</p>
            <ul class="grid">{{#apps}}{{> card}}{{/apps}}</ul>{{/has-apps}}{{/query}}
            {{> pager}}
            {{> end}}
            """,
        "image": """
            <img src="{{src}}"{{#class}} class="{{class}}"{{/class}}{{#srcset}} srcset="{{srcset}}" sizes="{{sizes}}"{{/srcset}} alt="{{alt}}"{{#width}} width="{{width}}" height="{{height}}"{{/width}}>
            """,
        "app": """
            {{> start}}
            <script type="application/ld+json">{{{jsonLD}}}</script>
            <div class="app-head">
            {{#icon}}{{> image}}{{/icon}}
            <div>
            <h1>{{name}}</h1>
            {{#subtitle}}<p class="hint">{{subtitle}}</p>{{/subtitle}}
            {{#developer}}<p>By {{developer}}</p>{{/developer}}
            <p class="price">{{priceLabel}}</p>
            {{#canInstall}}<form method="post" action="{{installAction}}">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <button type="submit">Install</button></form>{{/canInstall}}
            {{#paymentNote}}<p class="hint">{{paymentNote}}</p>{{/paymentNote}}
            {{#buyAction}}<form method="post" action="{{buyAction}}">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <button type="submit">{{buyLabel}}</button></form>{{/buyAction}}
            {{^signedIn}}<p><a class="button" href="{{signInURL}}">Sign in to install</a></p>{{/signedIn}}
            </div></div>
            {{#has-screenshots}}<h2>Screenshots</h2>
            {{#screenshots}}<h3 id="screens-{{slug}}">{{family}}</h3>
            <ul class="screens" tabindex="0" aria-labelledby="screens-{{slug}}">{{#images}}<li>{{> image}}</li>{{/images}}</ul>
            {{/screenshots}}{{/has-screenshots}}
            <h2>Description</h2>
            {{#description}}<p>{{.}}</p>
            {{/description}}{{^description}}<p class="hint">No description yet.</p>{{/description}}
            {{#has-whatsNew}}<h2>What’s new</h2>
            {{#latestVersion}}<p class="hint">Version {{latestVersion}}</p>{{/latestVersion}}
            {{#whatsNew}}<p>{{.}}</p>
            {{/whatsNew}}{{/has-whatsNew}}
            {{#has-products}}<h2>In-app purchases</h2>
            <ul>{{#products}}<li><strong>{{title}}</strong> · {{kind}} · <span class="price">{{price}}</span></li>
            {{/products}}</ul>{{/has-products}}
            <h2>Information</h2>
            <dl class="facts">
            {{#developer}}<dt>Developer</dt><dd>{{developer}}</dd>{{/developer}}
            {{#category}}<dt>Category</dt><dd><a href="{{url}}">{{name}}</a></dd>{{/category}}
            {{#size}}<dt>Size</dt><dd>{{size}}</dd>{{/size}}
            <dt>Compatibility</dt><dd>{{#compatibility}}{{.}}<br>{{/compatibility}}{{^compatibility}}Not yet known{{/compatibility}}</dd>
            {{#latestVersion}}<dt>Version</dt><dd>{{latestVersion}}</dd>{{/latestVersion}}
            <dt>Price</dt><dd>{{priceLabel}}</dd>
            </dl>
            <h2>Version history</h2>
            {{^versions}}<p class="hint">No version yet.</p>{{/versions}}
            <ul>{{#versions}}<li><strong>{{shortVersion}}</strong> ({{bundleVersion}}) · released <time datetime="{{released}}">{{released}}</time>{{#requirements}} · {{requirements}}{{/requirements}}</li>
            {{/versions}}</ul>
            <p><a href="/apps">All apps</a></p>
            {{> end}}
            """,
    ]
}
