"""A password reset from the console, in Chromium: a support account makes a reset link for a
customer (shown once), and the customer opens it in their own browser, chooses a password, signs in
with it, and finds the used link refused. Every page passes Browsers.check (style, clean console,
axe-core, screenshot)."""

import urllib.parse

from selenium.webdriver.common.by import By

from souk_browser import sign_in_on_website, wait_for

NEW_PASSWORD = "a password of my own choosing"


def path_of(driver):
    return urllib.parse.urlsplit(driver.current_url).path


def test_support_makes_a_reset_link_and_the_person_chooses_a_password(browsers, support, reset_person):
    staff = browsers.chromium()
    sign_in_on_website(staff, support.base, support.email, support.password)
    staff.get(f"{support.base}/admin/people?q={urllib.parse.quote(reset_person.email)}")
    staff.find_element(By.LINK_TEXT, reset_person.email).click()
    wait_for(lambda: path_of(staff).startswith("/admin/people/"), "the person's page")
    browsers.check(staff, "person")
    staff.find_element(By.XPATH, "//button[normalize-space()='Make a reset link and sign out everywhere']").click()
    wait_for(lambda: staff.find_elements(By.ID, "reset-link"), "the reset link")
    link = staff.find_element(By.ID, "reset-link").text
    assert link.startswith(f"{support.base}/reset/spr_"), link
    browsers.check(staff, "reset-link-made")

    # The person, in their own browser: the old password no longer works; the link lets them choose one.
    person = browsers.chromium()
    person.get(f"{reset_person.base}/signin")
    person.find_element(By.ID, "email").send_keys(reset_person.email)
    person.find_element(By.ID, "password").send_keys(reset_person.password)
    person.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_for(lambda: "The email or password is not right." in person.page_source, "the old password refused")
    browsers.check(person, "old-password-refused", expected_status=401)
    person.get(link)
    assert "Choose a new password" in person.find_element(By.TAG_NAME, "h1").text
    assert reset_person.email in person.page_source
    browsers.check(person, "reset-form")
    person.find_element(By.ID, "new-password").send_keys(NEW_PASSWORD)
    person.find_element(By.ID, "confirm-password").send_keys(NEW_PASSWORD)
    person.find_element(By.XPATH, "//button[normalize-space()='Set password']").click()
    wait_for(lambda: path_of(person) == "/signin" and "Your new password is set" in person.page_source, "the sign-in page's notice")
    browsers.check(person, "reset-done")
    sign_in_on_website(person, reset_person.base, reset_person.email, NEW_PASSWORD)

    # The link worked once.
    person.get(link)
    assert "This link does not work" in person.find_element(By.TAG_NAME, "h1").text
    browsers.check(person, "reset-link-used", expected_status=404)
