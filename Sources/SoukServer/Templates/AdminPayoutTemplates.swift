/// The payout statement: the `payout-statement` partial is what the developer console renders too,
/// inside its own layout (`PayoutStatementPage`).
enum AdminPayoutTemplates {
    static let all: [String: String] = [
        "payout-statement": """
            <h1>Statement of {{developerName}}, {{month}}</h1>
            {{#pickerAction}}<form method="get" action="{{pickerAction}}" class="inline"><label for="statement-month">Month</label>
            <input id="statement-month" name="month" type="month" value="{{month}}" pattern="[0-9]{4}-[0-9]{2}" required> <button type="submit">Show</button></form>{{/pickerAction}}
            <p>Paid-app sales and refunds of the organisation's apps in {{month}} (UTC), per currency. The marketplace's commission
            is {{commissionPercent}}% of the net (sales less refunds), rounded half-up to the currency's smallest unit; the payout is the net less the commission.</p>
            {{^lines}}<p class="muted">No sales or refunds this month.</p>{{/lines}}
            {{#has-lines}}<div class="table-wrap" tabindex="0"><table><caption class="visually-hidden">Statement per currency</caption>
            <thead><tr><th scope="col">Currency</th><th scope="col">Sales</th><th scope="col">Gross</th><th scope="col">Refunds</th><th scope="col">Net</th><th scope="col">Commission</th><th scope="col">Payout</th></tr></thead><tbody>{{/has-lines}}
            {{#lines}}<tr><td>{{currency}}</td><td>{{sales}}</td><td>{{gross}}</td><td>{{refunds}} ({{refundCount}})</td><td>{{net}}</td><td>{{commission}}</td><td>{{payout}}</td></tr>
            {{/lines}}{{#has-lines}}</tbody></table></div>{{/has-lines}}
            <p><a href="{{csvHref}}" download>Download as CSV</a> · <a href="{{previousHref}}">{{previousMonth}}</a> · <a href="{{nextHref}}">{{nextMonth}}</a></p>
            """,
        "admin-payout-statement": """
            {{> start}}
            {{> console-nav}}
            {{> payout-statement}}
            {{> end}}
            """,
    ]
}
