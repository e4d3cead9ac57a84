/// The account pages' templates (merged into `Pages`; names must not clash with other groups').
/// Each starts with `{{> start}}` (or `{{> start-plain}}`) and ends with `{{> end}}`.
enum AccountTemplates {
    static let all: [String: String] = [
        "account": """
            {{> start}}
            <h1>Your account</h1>
            <p>Signed in as <strong>{{email}}</strong>.</p>
            {{#notice}}<p class="notice" role="status">{{notice}}</p>{{/notice}}
            {{#problem}}<p class="error" role="alert">{{problem}}</p>{{/problem}}

            <h2 id="plans">Memberships</h2>
            {{^plans}}<p class="hint">No membership.</p>{{/plans}}
            {{#has-plans}}<div class="table-wrap" tabindex="0"><table>
            <thead><tr><th scope="col">Plan</th><th scope="col">Price</th><th scope="col">Status</th><th scope="col">Renewal</th></tr></thead>
            <tbody>{{#plans}}<tr><td>{{name}}</td><td>{{price}}</td><td>{{status}}</td><td>
            {{#canCancel}}<form class="inline" method="post" action="/account/plans/{{id}}/cancel"><input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <button type="submit" class="secondary">Cancel renewal</button></form>{{/canCancel}}
            {{#canResume}}<form class="inline" method="post" action="/account/plans/{{id}}/resume"><input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <button type="submit">Resume renewal</button></form>{{/canResume}}
            {{^canCancel}}{{^canResume}}<span class="hint">—</span>{{/canResume}}{{/canCancel}}
            </td></tr>
            {{/plans}}</tbody></table></div>{{/has-plans}}

            <h2 id="purchases">Purchases</h2>
            {{^purchases}}<p class="hint">Nothing bought yet.</p>{{/purchases}}
            <ul>{{#purchases}}<li><strong>{{item}}</strong> · {{price}} · {{status}}</li>
            {{/purchases}}</ul>
            {{#has-receipts}}<h3>Receipts</h3>
            <div class="table-wrap" tabindex="0"><table>
            <thead><tr><th scope="col">Date</th><th scope="col">Item</th><th scope="col">What</th><th scope="col">Amount</th></tr></thead>
            <tbody>{{#receipts}}<tr><td>{{date}}</td><td>{{item}}</td><td>{{kind}}</td><td>{{amount}}</td></tr>
            {{/receipts}}</tbody></table></div>{{/has-receipts}}

            <h2 id="devices">Devices</h2>
            {{^devices}}<p class="hint">No device is signed in.</p>{{/devices}}
            <ul>{{#devices}}
            <li><strong>{{clientId}}</strong> · signed in {{signedIn}} · last used {{lastUsed}}
            <form method="post" action="/account/devices/sign-out"><input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <input type="hidden" name="client_id" value="{{clientId}}"><button type="submit" class="secondary">Sign out this device</button></form></li>
            {{/devices}}</ul>
            {{#has-devices}}<form method="post" action="/account/devices/sign-out"><input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <button type="submit" class="secondary">Sign out all devices</button></form>{{/has-devices}}
            <h3>Active installs</h3>
            <p class="hint">{{installCount}} device(s) with a live app license{{#deviceLimit}}, of at most {{deviceLimit}}{{/deviceLimit}}.</p>
            <ul>{{#installs}}
            <li><strong>Device {{deviceId}}</strong> · {{apps}} app(s) · licensed until {{expires}}
            <form method="post" action="/account/installs/release"><input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <input type="hidden" name="device_id" value="{{deviceId}}"><button type="submit" class="secondary">Release this device</button></form></li>
            {{/installs}}</ul>

            <h2 id="password">Password</h2>
            <form method="post" action="/account/password" class="narrow"><input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <input type="text" name="username" autocomplete="username" value="{{email}}" hidden>
            <label for="current-password">Current password</label>
            <input id="current-password" name="current_password" type="password" autocomplete="current-password" required>
            <label for="new-password">New password (at least 8 characters)</label>
            <input id="new-password" name="new_password" type="password" autocomplete="new-password" required minlength="8">
            <label for="confirm-password">New password again</label>
            <input id="confirm-password" name="confirm_password" type="password" autocomplete="new-password" required minlength="8">
            <button type="submit">Change password</button></form>

            <h2 id="sign-out">Signing out</h2>
            <form method="post" action="/signout" class="inline"><input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <button type="submit" class="secondary">Sign out of this browser</button></form>
            <form method="post" action="/account/sign-out-everywhere" class="inline"><input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <button type="submit" class="secondary">Sign out everywhere</button></form>
            <p class="hint">Everywhere means every browser and every device: they must sign in again.</p>

            <h2 id="delete">Delete your account</h2>
            <p>Deleting your account cannot be undone. What it means:</p>
            <ul>
            <li>You are signed out everywhere and can never sign in to this account again; your email is removed from it.</li>
            <li>Apps that need an account stop working when their current license ends — within {{accountLicenseHours}} hours — and are never renewed, restored or updated.
            Free public apps keep working until their license ends (within {{publicLicenseDays}} days); reinstall them to keep using them.</li>
            <li>Memberships stop renewing; what you bought is not refunded. The marketplace keeps the record of your purchases, without your email, for its accounts.</li>
            </ul>
            <form method="post" action="/account/delete" class="narrow"><input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <label for="delete-password">Your password</label>
            <input id="delete-password" name="password" type="password" autocomplete="current-password" required>
            <p><input id="delete-confirm" name="confirm" type="checkbox" value="yes" required>
            <label for="delete-confirm" class="inline-label">I understand: delete my account</label></p>
            <button type="submit" class="danger">Delete my account</button></form>
            {{> end}}
            """,
        "password-reset": """
            {{> start-plain}}
            <h1>Choose a new password</h1>
            <p>For <strong>{{email}}</strong> on {{marketplace}}. This link works once.</p>
            {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
            <form method="post" action="{{action}}" class="narrow"><input type="hidden" name="csrf_token" value="{{csrfToken}}">
            <label for="new-password">New password (at least 8 characters)</label>
            <input id="new-password" name="new_password" type="password" autocomplete="new-password" required minlength="8" autofocus>
            <label for="confirm-password">New password again</label>
            <input id="confirm-password" name="confirm_password" type="password" autocomplete="new-password" required minlength="8">
            <button type="submit">Set password</button></form>
            {{> end}}
            """,
        "password-reset-invalid": """
            {{> start-plain}}
            <h1>This link does not work</h1>
            <p class="error" role="alert">The password reset link was used already, replaced by a newer one, or is more than 24 hours old.</p>
            <p>Ask the marketplace's support for a new link, or <a href="/signin">sign in</a> if you know your password.</p>
            {{> end}}
            """,
    ]
}
