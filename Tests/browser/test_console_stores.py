"""The console's store forms in Chromium, against the store fakes the Swift and end-to-end tests use
(scripts/browser-tests.sh starts them and points the first server at them): the App Store Server
API fake of the Swift tests (`souk-store-fakes`) and Google Play in `Tests/stores-e2e/fakestores.py`.

A customer of app SOUK_BROWSER_STORES_APP holds an App Store subscription and a Google Play
one-time purchase, reported to Souk as the app would (a device sign-in, then CloudEvents). An
operator of its own, with two-factor sign-in on (enrolled once here; each test signs in with the
password and one of its recovery codes), then, as a person would in the console:

- extends the customer's App Store subscription from their page (Apple's new renewal date shown);
- extends every subscriber of the product (the mass extension): a bad storefront shown in the form
  (400, nothing sent), the confirmation page, then the request's status until Apple completes it;
- looks up an App Store order id and reaches the customer;
- refunds the Google Play purchase at Google.

Every page passes Browsers.check (style, clean console with no CSP message, axe-core, screenshot).
"""

import importlib.util
import json
import os
import re
import time
import urllib.parse

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

import souk_browser
from souk_browser import wait_for
from test_console import heading, path_of, submit, totp

HERE = os.path.dirname(os.path.abspath(__file__))
ORDER_ID = "MK5TTTVWJH"


def _stores_check():
    """Tests/stores-e2e/stores_check.py (its HTTP, sign-in and CloudEvent helpers)."""
    spec = importlib.util.spec_from_file_location("stores_check", os.path.join(HERE, "..", "stores-e2e", "stores_check.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Stores:
    def __init__(self):
        env = os.environ
        self.base = env["SOUK_BROWSER_BASE"]
        self.app = env["SOUK_BROWSER_STORES_APP"]
        self.apple = env["SOUK_BROWSER_APPLE_FAKE"]
        self.google = env["SOUK_BROWSER_GOOGLE_FAKE"]
        self.operator_email = env["SOUK_BROWSER_STORES_OPERATOR_EMAIL"]
        self.operator_password = env["SOUK_BROWSER_STORES_OPERATOR_PASSWORD"]
        self.customer_email = env["SOUK_BROWSER_STORES_CUSTOMER_EMAIL"]
        self.customer_password = env["SOUK_BROWSER_STORES_CUSTOMER_PASSWORD"]
        self.recovery_codes = []
        self.customer_id = None
        self.google_payment = None


def _report(check, base, app, token, store, product, sku, transaction_id, receipt):
    """The customer's app reports a purchase to Souk (a structured CloudEvent)."""
    event = check.cloud_event(store, product, sku, transaction_id, receipt)
    event["source"] = f"browser-tests://{app}"
    headers, body = check.cc.encode(event, "structured")
    headers["Authorization"] = f"Bearer {token}"
    status, _, answer = check.request("POST", f"{base}/commerce/{app}/transactions", body, headers)
    assert status == 201, f"{store} purchase: {status} {answer!r}"
    return json.loads(answer)["data"]["id"]


def _enrol(stores):
    """Turns on the operator's two-factor sign-in once and keeps its recovery codes."""
    driver = souk_browser.new_chromium()
    try:
        driver.get(f"{stores.base}/signin?next=%2Fadmin%2Fsecurity")
        driver.find_element(By.ID, "email").send_keys(stores.operator_email)
        driver.find_element(By.ID, "password").send_keys(stores.operator_password)
        submit(driver, "Sign in")
        wait_for(lambda: path_of(driver) == "/admin/security", "the two-factor settings")
        secret = re.search(r"Secret \(base32\): <code>([A-Z2-7]+)</code>", driver.page_source).group(1)
        driver.find_element(By.ID, "totp-code").send_keys(totp(secret, time.time()))
        submit(driver, "Turn on two-factor sign-in")
        wait_for(lambda: "Recovery codes" in heading(driver), "the recovery codes")
        stores.recovery_codes = [element.text for element in driver.find_elements(By.CSS_SELECTOR, "main ul li code")]
        assert len(stores.recovery_codes) == 10
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def stores():
    """The customer's purchases reported, the order known to Apple, the operator enrolled."""
    if souk_browser.chromium_missing():
        pytest.skip("Chromium is missing (the Browsers fixture says so loudly)")
    stores = Stores()
    check = _stores_check()
    token = check.sign_in(stores.base, stores.customer_email, stores.customer_password)
    status, _, body = check.request("POST", f"{stores.apple}/_control/apple/subscription",
                                    {"productId": f"{stores.app}.monthly", "account": stores.customer_email, "days": 30})
    assert status == 200, f"the Apple fake: {status} {body!r}"
    apple = json.loads(body)
    _report(check, stores.base, stores.app, token, "apple_store", "stores.monthly", f"{stores.app}.monthly",
            apple["transactionId"], apple["jws"])
    status, _, body = check.request("POST", f"{stores.apple}/_control/apple/order",
                                    {"orderId": ORDER_ID, "transactionIds": [apple["transactionId"]]})
    assert status == 200, f"the Apple fake's order: {status} {body!r}"
    google_token = "browser-book-" + os.urandom(12).hex()
    check.Fakes(stores.google).control("google/product", {
        "_token": google_token, "_productId": "book", "_purchaseOptionId": "buy", "_offerId": "launch", "kind": "androidpublisher#productPurchase",
        "purchaseTimeMillis": str(check.ms(check.now())), "purchaseState": 0, "consumptionState": 0,
        "orderId": "GPA.7777-0000-0000-00001", "acknowledgementState": 0, "quantity": 1, "regionCode": "US"})
    stores.google_payment = _report(check, stores.base, stores.app, token, "google_play", "stores.book", "book",
                                    "GPA.7777-0000-0000-00001", google_token)
    _enrol(stores)
    return stores


def sign_in(browsers, stores, next_path):
    """A fresh Chromium signed in to the console as the operator: password, then a recovery code."""
    driver = browsers.chromium()
    driver.get(f"{stores.base}/signin?next={urllib.parse.quote(next_path, safe='')}")
    driver.find_element(By.ID, "email").send_keys(stores.operator_email)
    driver.find_element(By.ID, "password").send_keys(stores.operator_password)
    submit(driver, "Sign in")
    wait_for(lambda: path_of(driver) == "/signin/code", "the code step")
    browsers.check(driver, "code-step")
    driver.find_element(By.ID, "code").send_keys(stores.recovery_codes.pop())
    submit(driver, "Continue")
    wait_for(lambda: path_of(driver) == urllib.parse.urlsplit(next_path).path, f"{next_path} after the code")
    return driver


def open_customer(driver, browsers, stores):
    """From the people search to the customer's page."""
    driver.find_element(By.ID, "people-q").send_keys(stores.customer_email)
    submit(driver, "Search")
    wait_for(lambda: driver.find_elements(By.LINK_TEXT, stores.customer_email), "the customer in the results")
    driver.find_element(By.LINK_TEXT, stores.customer_email).click()
    wait_for(lambda: stores.customer_email in heading(driver), "the customer's page")
    browsers.check(driver, "person")


def notice(driver):
    return driver.find_element(By.CSS_SELECTOR, "[role=status].notice").text


def test_an_operator_extends_a_customers_app_store_subscription(browsers, stores):
    driver = sign_in(browsers, stores, "/admin/people")
    open_customer(driver, browsers, stores)
    Select(driver.find_element(By.ID, "extend-app")).select_by_value(stores.app)
    driver.find_element(By.ID, "extend-days").send_keys("7")
    Select(driver.find_element(By.ID, "extend-reason")).select_by_visible_text("Customer satisfaction")
    submit(driver, "Extend")
    wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "[role=status].notice"), "the extension's outcome")
    assert re.search(rf"{re.escape(stores.app)}\.monthly renews \S+", notice(driver)), notice(driver)
    browsers.check(driver, "extended")


def test_an_operator_extends_every_subscriber_after_confirming(browsers, stores):
    driver = sign_in(browsers, stores, f"/admin/catalog/{stores.app}")
    driver.find_element(By.LINK_TEXT, "App Store renewal-date extensions").click()
    wait_for(lambda: "Renewal-date extensions of" in heading(driver), "the extensions page")
    browsers.check(driver, "extensions")

    # A storefront that is no ISO 3166-1 alpha-3 code: the form again, with the error; nothing sent.
    Select(driver.find_element(By.ID, "mass-product")).select_by_value("stores.monthly")
    driver.find_element(By.ID, "mass-days").send_keys("3")
    driver.find_element(By.ID, "mass-storefronts").send_keys("usa")
    submit(driver, "Review the extension")
    wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "[role=alert].error"), "the form's error")
    assert "not an ISO 3166-1 alpha-3 code" in driver.find_element(By.CSS_SELECTOR, "[role=alert].error").text
    assert not driver.find_elements(By.ID, "extension-requests") or "mass" not in driver.find_element(By.ID, "extension-requests").text
    browsers.check(driver, "bad-storefront", expected_status=400)

    storefronts = driver.find_element(By.ID, "mass-storefronts")
    storefronts.clear()
    storefronts.send_keys("USA")
    submit(driver, "Review the extension")
    wait_for(lambda: "Extend every subscriber of" in heading(driver), "the confirmation page")
    assert f"{stores.app}.monthly" in driver.page_source and "3 days" in driver.page_source
    browsers.check(driver, "confirm")
    submit(driver, "Ask Apple to extend")
    wait_for(lambda: "requested=" in driver.current_url, "the extensions page after the request")
    assert "Asked Apple to extend every active subscriber" in notice(driver), notice(driver)
    browsers.check(driver, "requested")

    # Apple completes it in the background: the page shows the worker's record of it.
    def complete():
        driver.refresh()
        rows = driver.find_elements(By.CSS_SELECTOR, "#extension-requests tbody tr")
        return any(" mass " in f" {row.text} " and "complete" in row.text for row in rows)
    wait_for(complete, "the mass extension complete", timeout=60)
    browsers.check(driver, "complete")


def test_staff_look_up_an_app_store_order(browsers, stores):
    driver = sign_in(browsers, stores, "/admin/people")
    driver.find_element(By.ID, "order-id").send_keys(ORDER_ID)
    driver.find_element(By.ID, "order-app").send_keys(stores.app)
    submit(driver, "Look up")
    wait_for(lambda: f"App Store order {ORDER_ID}" in heading(driver), "the order's page")
    assert driver.find_elements(By.LINK_TEXT, stores.customer_email), "the order's purchase names the customer"
    browsers.check(driver, "order")
    driver.find_element(By.LINK_TEXT, stores.customer_email).click()
    wait_for(lambda: stores.customer_email in heading(driver), "the customer's page from the order")
    browsers.check(driver, "order-person")


def test_an_operator_refunds_a_google_play_purchase(browsers, stores):
    driver = sign_in(browsers, stores, "/admin/people")
    open_customer(driver, browsers, stores)
    driver.find_element(By.XPATH, "//button[starts-with(normalize-space(), 'Refund at Google Play')]").click()
    wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "[role=status].notice"), "the refund's outcome")
    text = notice(driver)
    assert "stores.book" in text and "at Google Play" in text, text
    browsers.check(driver, "refunded")
