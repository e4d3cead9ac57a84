"""Blobs on an S3-compatible store, checked from outside against moto's S3 server with
signature checking on (scripts/e2e-s3.sh runs it).

  s3_check.py setup ENDPOINT OUT.json   IAM user, access key, policy and bucket at moto; keys to OUT
  s3_check.py check BASE ENDPOINT DATA_DIR SOUK KEYS.json
"""
import hashlib
import http.client
import json
import os
import sqlite3
import subprocess
import sys
import time
import urllib.parse

import boto3
from botocore.config import Config

BUCKET = "souk-blobs"


def client(endpoint, key_id, secret, service="s3"):
    return boto3.client(service, endpoint_url=endpoint, aws_access_key_id=key_id, aws_secret_access_key=secret,
                        region_name="us-east-1", config=Config(s3={"addressing_style": "path"}))


def setup(endpoint, out):
    # moto answers these first actions without credentials (INITIAL_NO_AUTH_ACTION_COUNT), then
    # checks every signature and policy, as S3 does.
    iam = client(endpoint, "bootstrap", "bootstrap", "iam")
    iam.create_user(UserName="souk")
    key = iam.create_access_key(UserName="souk")["AccessKey"]
    iam.put_user_policy(UserName="souk", PolicyName="blobs", PolicyDocument=json.dumps({
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": ["s3:*"], "Resource": ["*"]}]}))
    client(endpoint, key["AccessKeyId"], key["SecretAccessKey"]).create_bucket(Bucket=BUCKET)
    with open(out, "w") as f:
        json.dump({"id": key["AccessKeyId"], "secret": key["SecretAccessKey"]}, f)


def expect(condition, message):
    if not condition:
        print(f"s3: FAIL: {message}", file=sys.stderr)
        sys.exit(1)


class Answer:
    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body

    def header(self, name):
        for key, value in self.headers:
            if key.lower() == name.lower():
                return value
        return None


def request(method, url, headers=None):
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    path = parts.path + (("?" + parts.query) if parts.query else "")
    connection.request(method, path, headers=headers or {})
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return Answer(response.status, response.getheaders(), body)


def presigned_signature_valid(url, keys):
    """Whether botocore, signing the same GET at the same time for the same lifetime and response
    headers, computes the URL's X-Amz-Signature."""
    import datetime
    from unittest import mock
    import botocore.auth
    import botocore.awsrequest
    import botocore.credentials
    parts = urllib.parse.urlsplit(url)
    query = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    given = dict(query)
    kept = [(k, v) for k, v in query if not k.startswith("X-Amz-")]
    bare = urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path, urllib.parse.urlencode(kept), ""))
    at = datetime.datetime.strptime(given["X-Amz-Date"], "%Y%m%dT%H%M%SZ")

    class Fixed(datetime.datetime):
        @classmethod
        def utcnow(cls):
            return at

        @classmethod
        def now(cls, tz=None):
            return at.replace(tzinfo=tz) if tz else at

    region = given["X-Amz-Credential"].split("/")[2]
    credentials = botocore.credentials.Credentials(keys["id"], keys["secret"])
    with mock.patch("botocore.auth.datetime.datetime", Fixed):
        signed = botocore.awsrequest.AWSRequest(method="GET", url=bare)
        botocore.auth.S3SigV4QueryAuth(credentials, "s3", region, expires=int(given["X-Amz-Expires"])).add_auth(signed)
    expected = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(signed.url).query))
    return expected.get("X-Amz-Signature") == given.get("X-Amz-Signature")


def souk(binary, *arguments, env=None, check=True):
    result = subprocess.run([binary, *arguments], capture_output=True, text=True, env=env)
    if check and result.returncode != 0:
        expect(False, f"souk {' '.join(arguments)} failed: {result.stderr}")
    return result


def check(base, endpoint, data_dir, souk_bin, keys_file):
    keys = json.load(open(keys_file))
    s3 = client(endpoint, keys["id"], keys["secret"])
    database = sqlite3.connect(os.path.join(data_dir, "souk.sqlite"))

    # 1. Every blob the data folder holds is in the bucket, under its digest, with its size.
    stored = {}
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=BUCKET):
        for item in page.get("Contents", []):
            stored[item["Key"]] = item["Size"]
    local = {}
    for root, _, files in os.walk(os.path.join(data_dir, "blobs", "sha256")):
        for name in files:
            local[f"sha256/{name[:2]}/{name}"] = os.path.getsize(os.path.join(root, name))
    expect(local and all(stored.get(key) == size for key, size in local.items()),
           f"{len([k for k in local if k not in stored])} of {len(local)} blobs missing from the bucket")
    named = {row[0] for row in database.execute("SELECT blob_sha256 FROM package_files")}
    expect(all(f"sha256/{d[:2]}/{d}" in stored for d in named), "a package file's blob is not in the bucket")
    print(f"s3: {len(stored)} blobs in the bucket, every package file's among them")

    # 2. A download is a short-lived presigned redirect; the bytes come from the store.
    item, version, path, digest, size = database.execute("""
        SELECT a.apple_item_id, v.apple_version_id, f.path, f.blob_sha256, f.size FROM package_files f
        JOIN app_versions v ON v.id = f.version_id JOIN apps a ON a.id = v.app_id
        WHERE a.availability = 'available' AND v.withdrawn_at IS NULL ORDER BY f.size DESC LIMIT 1""").fetchone()
    url = f"{base}/packages/{item}/{version}/{path}"
    answer = request("GET", url)
    location = answer.header("Location") or ""
    expect(answer.status == 302 and location.startswith(f"{endpoint}/{BUCKET}/sha256/{digest[:2]}/{digest}?"),
           f"GET {url}: {answer.status} {location}")
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query))
    expect(0 < int(query["X-Amz-Expires"]) <= 3600 and query["X-Amz-Algorithm"] == "AWS4-HMAC-SHA256",
           f"presigned for {query.get('X-Amz-Expires')} s")
    expect("no-store" in (answer.header("Cache-Control") or ""), "the redirect must not be cached")
    # moto checks header signatures (every upload, HEAD and GET Souk makes here) but cannot check a
    # presigned URL while its IAM checks are on (it looks for an Authorization header and fails).
    # So the URL's signature is recomputed with botocore, AWS's own signer, as S3 would, and the
    # bytes at its path are read with a header-signed GET.
    expect(presigned_signature_valid(location, keys), "the presigned URL's signature is not what botocore computes")
    tampered = location.replace(f"X-Amz-Expires={query['X-Amz-Expires']}", "X-Amz-Expires=3599")
    expect(not presigned_signature_valid(tampered, keys), "a changed presigned URL must not verify")
    key = urllib.parse.urlsplit(location).path.split(f"/{BUCKET}/", 1)[1]
    whole = s3.get_object(Bucket=BUCKET, Key=key)["Body"].read()
    expect(hashlib.sha256(whole).hexdigest() == digest and len(whole) == size, f"the store's bytes: {len(whole)}")
    part = s3.get_object(Bucket=BUCKET, Key=key, Range="bytes=10-99")["Body"].read()
    expect(part == whole[10:100], "a range from the store")
    head = request("HEAD", url)
    expect(head.status == 200 and head.header("Content-Length") == str(size) and head.header("Location") is None,
           f"HEAD from Souk: {head.status} {head.header('Content-Length')}")
    cached = request("GET", url, {"If-None-Match": f'"{digest}"'})
    expect(cached.status == 304 and cached.header("Location") is None, f"If-None-Match: {cached.status}")
    print(f"s3: {size}-byte package file by presigned 302 ({query['X-Amz-Expires']} s), ranges, HEAD and 304 from Souk")

    # 3. A blob this machine has no copy of is fetched from the store (another process's upload).
    icon = database.execute("SELECT icon_sha256 FROM apps WHERE icon_sha256 IS NOT NULL LIMIT 1").fetchone()[0]
    icon_path = os.path.join(data_dir, "blobs", "sha256", icon[:2], icon)
    os.remove(icon_path)
    media = request("GET", f"{base}/media/{icon}.png")
    expect(media.status == 200 and hashlib.sha256(media.body).hexdigest() == icon and os.path.exists(icon_path),
           f"a media blob fetched from the store: {media.status}")
    print("s3: a blob missing here is fetched from the store, checked against its digest")

    # 4. An import with keys the store refuses fails clearly and writes no version; with the right keys it lands.
    souk(souk_bin, "apps", "create", "--apple-item-id", "6500000777", "--bundle-id", "org.example.s3", "--name", "S3 App")
    sample = os.path.join(data_dir, "..", "sample-s3")
    souk(souk_bin, "packages", "make-sample", "--apple-item-id", "6500000777", "--apple-version-id", "9000000777",
         "--bundle-id", "org.example.s3", "--short-version", "1.0", "--bundle-version", "1", "--min-os", "17.0",
         "--variant-size", "300000", "--out", sample)
    wrong = dict(os.environ, SOUK_S3_SECRET_ACCESS_KEY="0" * 40)
    refused = souk(souk_bin, "packages", "import", sample, env=wrong, check=False)
    expect(refused.returncode != 0 and "object store unavailable" in refused.stderr + refused.stdout,
           f"an import the store refuses: exit {refused.returncode}: {refused.stderr.strip()[-300:]}")
    versions = database.execute("""SELECT count(*) FROM app_versions v JOIN apps a ON a.id = v.app_id
                                   WHERE a.apple_item_id = 6500000777""").fetchone()[0]
    expect(versions == 0, "a refused upload left a version behind")
    souk(souk_bin, "packages", "import", sample)
    answer = request("GET", f"{base}/packages/6500000777/9000000777/manifest.json")
    expect(answer.status == 302 and presigned_signature_valid(answer.header("Location"), keys), "the new version from the store")
    print("s3: an import the store refuses fails naming it and writes no version; with the right keys it lands")

    # 5. A taken-down app is a 404, never a redirect.
    souk(souk_bin, "apps", "takedown", "--apple-item-id", str(item), "--reason", "s3 check")
    deadline = time.time() + 3
    while time.time() < deadline:
        gone = request("GET", url)
        if gone.status == 404:
            break
        time.sleep(0.1)
    expect(gone.status == 404 and gone.header("Location") is None and gone.header("Content-Type") == "application/problem+json",
           f"a taken-down app's file: {gone.status} {gone.header('Location')}")
    print("s3: a taken-down app's file is a 404 problem, never a redirect")


def outage(base, data_dir):
    """With the store down, a blob this machine lacks is a 503 to retry, never a 404."""
    database = sqlite3.connect(os.path.join(data_dir, "souk.sqlite"))
    icons = [row[0] for row in database.execute("SELECT icon_sha256 FROM apps WHERE icon_sha256 IS NOT NULL")]
    icon = icons[-1]
    path = os.path.join(data_dir, "blobs", "sha256", icon[:2], icon)
    if os.path.exists(path):
        os.remove(path)
    answer = request("GET", f"{base}/media/{icon}.png")
    expect(answer.status == 503 and answer.header("Retry-After") and answer.header("Content-Type") == "application/problem+json",
           f"a blob while the store is down: {answer.status}")
    print("s3: with the store down, a blob not held here is 503 + Retry-After")


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "setup":
        setup(*sys.argv[2:4])
    elif command == "check":
        check(*sys.argv[2:7])
    elif command == "outage":
        outage(*sys.argv[2:4])
    else:
        sys.exit(f"unknown command {command}")
