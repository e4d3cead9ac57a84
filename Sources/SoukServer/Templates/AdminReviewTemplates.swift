/// The console's review queue and a version's review page.
enum AdminReviewTemplates {
    static let all: [String: String] = [
        "admin-review-queue": """
            {{> start}}
            {{> console-nav}}
            <h1>Review</h1>
            {{#notice}}<p class="notice" role="status">{{notice}}</p>{{/notice}}
            <p>Versions developers uploaded are offered only once an operator releases them.</p>
            {{^versions}}<p class="muted">No version is waiting in review.</p>{{/versions}}
            {{#has-versions}}<div class="table-wrap" tabindex="0"><table><caption class="visually-hidden">Versions waiting in review</caption>
            <thead><tr><th scope="col">App</th><th scope="col">Version</th><th scope="col">AppleVersionID</th><th scope="col">Organisation</th><th scope="col">Uploaded</th></tr></thead><tbody>{{/has-versions}}
            {{#versions}}<tr><td><a href="{{href}}">{{app}}</a></td><td>{{short}} ({{build}})</td><td>{{version}}</td><td>{{developer}}</td><td>{{uploaded}}</td></tr>
            {{/versions}}{{#has-versions}}</tbody></table></div>{{/has-versions}}
            {{> end}}
            """,
        "admin-review-version": """
            {{> start}}
            {{> console-nav}}
            <h1>Review of {{app}} {{short}}</h1>
            <p class="muted">AppleItemID {{item}} · AppleVersionID {{version}}</p>
            {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
            <p>Review state: <strong class="review-state">{{state}}</strong>{{#reason}} — {{reason}}{{/reason}}</p>
            <dl class="facts">{{#facts}}<dt>{{name}}</dt><dd>{{value}}</dd>{{/facts}}</dl>
            <h2>Changes since the version offered now</h2>
            {{#previous}}<p class="muted">Compared with {{previous}}. Removed lines are struck through and marked −, added lines are marked +.</p>{{/previous}}
            {{^previous}}<p class="muted">The app has no released version yet: every fact is new.</p>{{/previous}}
            <pre class="diff" aria-label="Changes since the version offered now">{{#diff}}{{#added}}<ins>+ {{text}}</ins>{{/added}}{{#removed}}<del>− {{text}}</del>{{/removed}}{{^added}}{{^removed}}<span>  {{text}}</span>{{/removed}}{{/added}}
            {{/diff}}</pre>
            {{#inReview}}{{#isOperator}}
            <form method="post" action="{{approveAction}}">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <button type="submit">Approve and release</button>
            </form>
            <form method="post" action="{{rejectAction}}" class="wide">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <label for="review-reason">Why it is rejected (the developer is shown this)</label>
            <textarea id="review-reason" name="reason" rows="3" maxlength="{{maxReason}}" required></textarea>
            <button type="submit" class="secondary">Reject</button>
            </form>{{/isOperator}}
            {{^isOperator}}<p class="muted">Only an operator approves or rejects a version.</p>{{/isOperator}}{{/inReview}}
            <p><a href="/admin/review">Back to the review queue</a></p>
            {{> end}}
            """,
    ]
}
