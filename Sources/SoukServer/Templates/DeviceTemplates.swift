/// The pages of `/activate` (`DeviceAuthorizationController`), merged into `Pages`.
enum DeviceTemplates {
    static let all: [String: String] = [
        "activate": """
            {{> start-plain}}
            <h1>Connect a TV</h1>
            <p>Signed in as <strong>{{email}}</strong>. Enter the code your TV shows.</p>
            {{#error}}<p class="error" role="alert" id="activate-error">{{error}}</p>{{/error}}
            <form method="post" action="/activate">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <label for="user_code">Code</label>
            <input id="user_code" name="user_code" type="text" autocomplete="one-time-code" autocapitalize="characters" spellcheck="false" required maxlength="32" placeholder="XXXX-XXXX" value="{{userCode}}"{{#error}} aria-invalid="true" aria-describedby="activate-error"{{/error}}>
            <button type="submit">Continue</button>
            </form>
            {{> end}}
            """,
        "activate-confirm": """
            {{> start-plain}}
            <h1>Connect {{client}}?</h1>
            <p><strong>{{client}}</strong> asks to sign in to {{marketplace}} as <strong>{{email}}</strong>. It showed the code <strong>{{userCode}}</strong>: approve only if your TV shows that code.</p>
            <form method="post" action="/activate">
            <input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <input type="hidden" name="user_code" value="{{userCode}}">
            <button type="submit" name="decision" value="approve">Approve</button>
            <button type="submit" name="decision" value="deny" class="secondary">Deny</button>
            </form>
            {{> end}}
            """,
        "activate-done": """
            {{> start-plain}}
            {{#approved}}<h1>{{client}} is signed in</h1>
            <p role="status">You can go back to your TV: it continues in a few seconds.</p>{{/approved}}
            {{^approved}}<h1>Request denied</h1>
            <p role="status">{{client}} was not signed in.</p>{{/approved}}
            <p><a href="/account">Your account</a></p>
            {{> end}}
            """,
    ]
}
