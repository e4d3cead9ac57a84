/// The store credentials page of a catalog, in the developer console and the operator's console
/// (the same page under each console's navigation): which credentials are sealed (hint, who, when),
/// an upload to set or replace one, and removing. A secret is never on the page.
enum StoreCredentialTemplates {
    static var all: [String: String] {
        ["developer-credentials": page(nav: "developer-nav"), "admin-credentials": page(nav: "console-nav")]
    }

    static func page(nav: String) -> String {
        """
        {{> start}}
        {{> \(nav)}}
        <h1>Store credentials of {{app}}</h1>
        <p><a href="{{catalogHref}}">Back to the catalog</a></p>
        {{#notice}}<p class="notice" role="status">{{notice}}</p>{{/notice}}
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        <p>Uploaded keys and secrets are sealed at rest with the server's key and never shown again: only a hint. Upload again to replace one (a rotation, used by the next store call). A sealed credential is used instead of the catalog file's reference to the same secret.</p>
        {{^credentials}}<p class="muted">No sealed credentials.</p>{{/credentials}}
        {{#has-credentials}}<div class="table-wrap" tabindex="0"><table><caption class="visually-hidden">Sealed store credentials</caption>
        <thead><tr><th scope="col">Credential</th><th scope="col">Hint</th><th scope="col">Set by</th><th scope="col">Set</th><th scope="col">Remove</th></tr></thead><tbody>{{/has-credentials}}
        {{#credentials}}<tr><td>{{summary}}</td><td><code class="credential-hint">{{hint}}</code></td><td>{{setBy}}</td><td>{{setAt}}</td>
        <td>{{#canChange}}<form method="post" action="{{removeAction}}" class="inline">
        <input type="hidden" name="csrf_token" value="{{csrfToken}}">
        <button type="submit" class="danger">Remove<span class="visually-hidden"> the {{summary}}</span></button></form>{{/canChange}}</td></tr>
        {{/credentials}}{{#has-credentials}}</tbody></table></div>{{/has-credentials}}
        {{#canChange}}<h2>Upload a credential</h2>
        <form method="post" action="{{action}}" enctype="multipart/form-data">
        <input type="hidden" name="csrf_token" value="{{csrfToken}}">
        <label for="credential-kind">Credential</label>
        <select id="credential-kind" name="kind">{{#kinds}}<option value="{{value}}">{{label}}</option>{{/kinds}}</select>
        <label for="credential-file">File (.p8 key, service-account JSON, or a text file holding the secret)</label>
        <input id="credential-file" name="file" type="file" required>
        <button type="submit">Seal and save</button>
        </form>{{/canChange}}
        {{> end}}
        """
    }
}
