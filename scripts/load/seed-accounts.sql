-- scripts/load.sh: :n more accounts beside those `souk bench seed-purchases` made, in one statement.
-- Every NOT NULL column of the migrated `accounts` table is given; the rest keep their defaults.
-- They cannot sign in ('!' is no bcrypt hash), like seed-purchases' accounts; nothing here needs them to.
INSERT INTO accounts (id, email, password_hash, disabled, created_at, sandbox, role, totp_enabled)
SELECT ('10ad0000-0000-4000-8000-' || lpad(to_hex(n), 12, '0'))::uuid, 'load-' || n || '@example.com', '!', false,
       now() - (n % 1000) * interval '1 day', false, 'customer', false
FROM generate_series(1, :n) AS n;
