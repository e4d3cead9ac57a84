"""A TV's sign-in with the device authorization grant (RFC 8628), in Chromium: the TV (this test,
over HTTP) asks for codes as a registered `tv` client, the person opens the verification URI,
signs in, finds the code filled in, sees which client asks, and approves; the TV's next poll gets
the tokens, once. A wrong code is refused on the page. Every page passes Browsers.check (style,
clean console, axe-core, screenshot)."""

import os
import urllib.parse

from selenium.webdriver.common.by import By

from souk_browser import post_form, wait_for

GRANT = "urn:ietf:params:oauth:grant-type:device_code"


def path_of(driver):
    return urllib.parse.urlsplit(driver.current_url).path


def sign_in_at_activate(person, server):
    """Opens /activate signed out: the page sends the person to sign in, then back."""
    person.get(f"{server.base}/activate")
    wait_for(lambda: path_of(person) == "/signin", "the sign-in page before /activate")
    person.find_element(By.ID, "email").send_keys(server.email)
    person.find_element(By.ID, "password").send_keys(server.password)
    person.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_for(lambda: path_of(person) == "/activate", "/activate after signing in")


def poll(base, client_id, device_code):
    return post_form(f"{base}/oauth/token", {"grant_type": GRANT, "device_code": device_code, "client_id": client_id})


def test_a_person_approves_a_tv_on_the_activate_page(browsers, server):
    client_id = os.environ["SOUK_BROWSER_TV_CLIENT"]
    status, codes = post_form(f"{server.base}/oauth/device_authorization", {"client_id": client_id})
    assert status == 200, codes
    assert codes["verification_uri"] == f"{server.base}/activate"
    status, answer = poll(server.base, client_id, codes["device_code"])
    assert (status, answer["error"]) == (400, "authorization_pending"), answer

    person = browsers.chromium()
    # A wrong code first (signed in through the page's own redirect), then the TV's link.
    sign_in_at_activate(person, server)
    browsers.check(person, "activate-empty")
    person.find_element(By.ID, "user_code").send_keys("BBBB-BBBB")
    person.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_for(lambda: "That code is not right" in person.page_source, "the wrong code refused")
    browsers.check(person, "activate-wrong-code", expected_status=400)

    person.get(codes["verification_uri_complete"])
    field = person.find_element(By.ID, "user_code")
    assert field.get_attribute("value") == codes["user_code"]
    browsers.check(person, "activate-prefilled")
    person.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_for(lambda: "Connect Browser TV?" in person.page_source, "the confirmation naming the client")
    assert server.email in person.page_source and codes["user_code"] in person.page_source
    browsers.check(person, "activate-confirm")
    person.find_element(By.XPATH, "//button[normalize-space()='Approve']").click()
    wait_for(lambda: "Browser TV is signed in" in person.page_source, "the done page")
    browsers.check(person, "activate-done")

    status, tokens = poll(server.base, client_id, codes["device_code"])
    assert status == 200, tokens
    assert tokens["token_type"] == "Bearer" and tokens["access_token"] and tokens["refresh_token"]
    status, again = poll(server.base, client_id, codes["device_code"])
    assert (status, again["error"]) == (400, "invalid_grant"), again


def test_souk_device_signs_a_tv_in_when_a_person_approves_in_chromium(browsers, server, tmp_path):
    """souk-device tv-sign-in plays the TV: it prints the code, a person types it on /activate in
    Chromium and approves, and the device's polling ends with the tokens of that person."""
    import subprocess

    device = os.environ["SOUK_BROWSER_DEVICE"]
    if not os.path.exists(device):
        import pytest
        pytest.fail(f"souk-device is not built at {device}")
    tv = subprocess.Popen([device, "tv-sign-in", "--state", str(tmp_path / "tv"), "--marketplace", server.base,
                           "--client-id", os.environ["SOUK_BROWSER_TV_CLIENT"]],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = tv.stdout.readline().strip()
        assert first.startswith("code ") and len(first) == len("code XXXX-XXXX"), first
        code = first.split(" ", 1)[1]
        person = browsers.chromium()
        sign_in_at_activate(person, server)
        person.find_element(By.ID, "user_code").send_keys(code)
        person.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        wait_for(lambda: "Approve" in person.page_source, "the confirmation naming the client")
        person.find_element(By.XPATH, "//button[normalize-space()='Approve']").click()
        wait_for(lambda: "is signed in" in person.page_source, "the done page")
        browsers.check(person, "souk-device-tv-approved")
        # The device polls every 5 s (RFC 8628's default interval): its own end is the state to wait for.
        out, err = tv.communicate(timeout=120)
    finally:
        if tv.poll() is None:
            tv.kill()
    assert tv.returncode == 0, err
    assert f"signed in as {server.email}" in out, out
