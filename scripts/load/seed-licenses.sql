-- scripts/load.sh: one license per install (`licenses`), for the same account, app, current
-- version (8000000000 + i, as `souk bench seed-catalog` numbers them) and device, in one statement.
-- Issued 0–28 days ago for 720 hours (a public app's term), so every one is live; ids are unique
-- and below 2^63 (not random, unlike LicenseStore's: only the index's page order differs);
-- device ids are 32 hex digits, as in the development issuer's requests, one row of `devices` per
-- account's device (numbered from 1 in account order; the identity then continues after them).
-- The primary key stays; load.sh takes the three licensing indexes and the foreign key to accounts off
-- before this (indexes-off.sql) and puts them back after it (indexes-on.sql).
-- The insert runs in the transaction that truncates the (empty) table: with the cluster's
-- wal_level=minimal (load.sh) PostgreSQL then writes no WAL for it, only syncs the new files at commit
-- (PostgreSQL's documentation, "Populating a Database"). Rows go in account order (the primary key's
-- order): read through an index on the accounts' numbering, only each account's own rows are sorted.
BEGIN;
TRUNCATE licenses, devices;
CREATE TEMP TABLE load_accounts AS SELECT id, (row_number() OVER (ORDER BY id) - 1)::bigint AS k, md5('load-device-' || (row_number() OVER (ORDER BY id) - 1)) AS device FROM accounts ORDER BY id;
CREATE INDEX ON load_accounts (k);
ANALYZE load_accounts;
INSERT INTO devices (id, device_id) SELECT k + 1, device FROM load_accounts ORDER BY k;
SELECT setval(pg_get_serial_sequence('devices', 'id'), (SELECT count(*) FROM load_accounts) + 1, false);
INSERT INTO licenses (license_id, account_id, apple_item_id, apple_version_id, device, issued_at, expires_at, renewals)
SELECT (a.k * :per + j + 1) * 1000003 + 4242, a.id,
       7000000000 + (a.k * 7919 + j * 10007) % :free, 8000000000 + (a.k * 7919 + j * 10007) % :free,
       a.k + 1, now() - ((a.k + j) % 29) * interval '1 day',
       now() - ((a.k + j) % 29) * interval '1 day' + interval '720 hours', (a.k + j) % 20
FROM load_accounts a CROSS JOIN generate_series(0, :per - 1) AS j
ORDER BY a.k, j;
COMMIT;
