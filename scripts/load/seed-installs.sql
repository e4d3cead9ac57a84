-- scripts/load.sh: the install ledger (`installs`, one row per account, app and device), :per apps
-- on each account's one device, in one statement. Account k (in id order) installs apps
-- (k * 7919 + j * 10007) mod :free for j < :per: distinct apps per account (10007 is prime), spread
-- evenly over the first :free apps of `souk bench seed-catalog` (the apps for sale come after them).
-- load.sh takes the unique index (account_id, apple_item_id, client_id) and the foreign key to accounts
-- off before this (indexes-off.sql) and puts them back after it (indexes-on.sql).
-- The insert runs in the transaction that truncates the (empty) table: with the cluster's
-- wal_level=minimal (load.sh) PostgreSQL then writes no WAL for it, only syncs the new files at commit
-- (PostgreSQL's documentation, "Populating a Database"). Rows go in account order (the primary key's
-- order): read through an index on the accounts' numbering, only each account's own rows are sorted.
BEGIN;
TRUNCATE installs;
CREATE TEMP TABLE load_accounts AS SELECT id, (row_number() OVER (ORDER BY id) - 1)::bigint AS k FROM accounts ORDER BY id;
CREATE INDEX ON load_accounts (k);
ANALYZE load_accounts;
INSERT INTO installs (id, account_id, apple_item_id, client_id, created_at, download_type)
SELECT ('1a570000-0000-4000-8000-' || lpad(to_hex(a.k * :per + j), 12, '0'))::uuid, a.id,
       7000000000 + (a.k * 7919 + j * 10007) % :free, 'load-device-' || a.k,
       now() - ((a.k + j) % 29) * interval '1 day', 'download'
FROM load_accounts a CROSS JOIN generate_series(0, :per - 1) AS j
ORDER BY a.k, j;
COMMIT;
