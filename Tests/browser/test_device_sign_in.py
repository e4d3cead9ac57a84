"""The OAuth sign-in a device opens (MarketplaceKit's “Reauthenticating a person”): from the authorize URL to the browser's attempt to
open `app-distribution-oauth:?code=…&state=…`, in Chromium and in WebKit (the engine of iOS's
ASWebAuthenticationSession). The code the browser carried is then redeemed at the token endpoint,
as the device would, to prove it is a real one."""

import secrets

import pytest
from selenium.webdriver.common.by import By

from souk_browser import (assert_clean_console, authorize_url, device_answer, exchange_code, pkce_pair, sign_in_on_website,
                          wait_for, wait_for_device_redirect)

ENGINES = ["chromium", "webkit"]


def submit_and_reach_device(driver, browsers, step, server, client_id, state, verifier):
    """Submits the form; the browser must be sent to the device with a code the token endpoint takes."""
    driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    url = wait_for_device_redirect(driver)
    if driver.souk_engine == "chromium":
        assert_clean_console(driver, step)
    browsers.screenshot(driver, step)
    answer = device_answer(url)
    assert answer.get("state") == state, f"the device was sent {url}"
    assert answer.get("code"), f"the device was sent {url}"
    status, tokens = exchange_code(server.base, answer["code"], verifier, client_id)
    assert status == 200, f"the token endpoint refused the code: {tokens}"
    assert tokens["token_type"] == "Bearer" and tokens["access_token"] and tokens["refresh_token"]
    return tokens


def start(engine, browsers):
    driver = getattr(browsers, engine)()
    verifier, challenge = pkce_pair()
    return driver, verifier, challenge, f"browser-{engine}-{secrets.token_hex(4)}", secrets.token_urlsafe(12)


@pytest.mark.parametrize("engine", ENGINES)
def test_sign_in_from_the_authorize_url_sends_a_working_code_to_the_device(engine, browsers, server):
    driver, verifier, challenge, client_id, state = start(engine, browsers)
    driver.get(authorize_url(server.base, client_id, state, challenge, login_hint=server.email))
    assert driver.find_element(By.ID, "email").get_attribute("value") == server.email
    assert server.email in driver.find_element(By.CLASS_NAME, "hint").text
    browsers.check(driver, "sign-in-form")
    driver.find_element(By.ID, "password").send_keys(server.password)
    submit_and_reach_device(driver, browsers, "sent-to-device", server, client_id, state, verifier)


@pytest.mark.parametrize("engine", ENGINES)
def test_sign_in_after_a_wrong_password_still_reaches_the_device(engine, browsers, retry_server):
    # The second form is the answer to a POST: it carries the same policy as the first.
    server = retry_server
    driver, verifier, challenge, client_id, state = start(engine, browsers)
    driver.get(authorize_url(server.base, client_id, state, challenge, login_hint=server.email))
    driver.find_element(By.ID, "password").send_keys("not the password")
    driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    error = wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "[role=alert]"), "the form shown again")[0]
    assert "not right" in error.text
    browsers.check(driver, "wrong-password", expected_status=401)
    driver.find_element(By.ID, "password").send_keys(server.password)
    submit_and_reach_device(driver, browsers, "sent-to-device", server, client_id, state, verifier)


@pytest.mark.parametrize("engine", ENGINES)
def test_one_tap_continue_sends_a_working_code_to_the_device(engine, browsers, server):
    driver, verifier, challenge, client_id, state = start(engine, browsers)
    sign_in_on_website(driver, server.base, server.email, server.password)
    driver.get(authorize_url(server.base, client_id, state, challenge))
    button = driver.find_element(By.CSS_SELECTOR, "button[type=submit]")
    assert button.text == f"Continue as {server.email}"
    browsers.check(driver, "continue-as")
    submit_and_reach_device(driver, browsers, "sent-to-device", server, client_id, state, verifier)
