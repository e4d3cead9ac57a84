-- scripts/load.sh: takes the foreign keys, unique constraints and secondary indexes off :table before
-- a bulk insert (PostgreSQL then writes bare heap pages instead of updating every B-tree row by row
-- and probing `accounts` once per row). What it took off is kept in `load_deferred`, which
-- indexes-on.sql puts back. The primary key stays (the ids are inserted in order).
SET client_min_messages = warning;
CREATE TABLE IF NOT EXISTS load_deferred (tablename text, name text, kind text, definition text);
INSERT INTO load_deferred
SELECT :'table', conname, 'constraint', pg_get_constraintdef(oid)
FROM pg_constraint WHERE conrelid = :'table'::regclass AND contype IN ('f', 'u');
INSERT INTO load_deferred
SELECT :'table', indexname, 'index', indexdef
FROM pg_indexes WHERE schemaname = current_schema() AND tablename = :'table'
  AND indexname NOT IN (SELECT conname FROM pg_constraint WHERE conrelid = :'table'::regclass);
SELECT format('ALTER TABLE %I DROP CONSTRAINT %I', tablename, name) FROM load_deferred
WHERE tablename = :'table' AND kind = 'constraint' \gexec
SELECT format('DROP INDEX %I', name) FROM load_deferred WHERE tablename = :'table' AND kind = 'index' \gexec
