-- scripts/load.sh: a sample of :sample seeded accounts (one device each) for scripts/load/prepare.py,
-- tab-separated: account id, device id, its installed free apps as "appleItemId:currentVersionId,…",
-- its live licenses of free public apps as "licenseId,…", soonest to expire first.
COPY (
  WITH sample AS MATERIALIZED (SELECT id FROM accounts TABLESAMPLE BERNOULLI (:percent) REPEATABLE (15) LIMIT :sample),
  current AS MATERIALIZED (
    SELECT DISTINCT ON (v.app_id) a.apple_item_id, v.apple_version_id
    FROM app_versions v JOIN apps a ON a.id = v.app_id
    WHERE v.withdrawn_at IS NULL AND a.availability = 'available' AND a.access = 'public' AND a.prices IS NULL
          AND a.requires_entitlement IS NULL
    ORDER BY v.app_id, v.release_date DESC),
  items AS (SELECT i.account_id, string_agg(i.apple_item_id || ':' || c.apple_version_id, ',' ORDER BY i.apple_item_id) AS items
            FROM sample s JOIN installs i ON i.account_id = s.id JOIN current c ON c.apple_item_id = i.apple_item_id
            GROUP BY i.account_id),
  held AS (SELECT DISTINCT ON (l.account_id) l.account_id, d.device_id,
                  string_agg(l.license_id::text, ',' ORDER BY l.expires_at) AS licenses
           FROM sample s JOIN licenses l ON l.account_id = s.id JOIN devices d ON d.id = l.device
                JOIN current c ON c.apple_item_id = l.apple_item_id
           WHERE l.revoked_at IS NULL AND l.expires_at > now()
           GROUP BY l.account_id, d.device_id
           ORDER BY l.account_id, count(*) DESC)
  SELECT items.account_id, coalesce(held.device_id, ''), items.items, coalesce(held.licenses, '')
  FROM items LEFT JOIN held USING (account_id)
) TO STDOUT;
