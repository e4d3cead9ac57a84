-- scripts/load.sh: puts back what indexes-off.sql took off :table: each index built once over the
-- whole table (a sort, with two workers), then the unique constraints, then the foreign keys
-- (each checked in one join instead of one probe per row).
SET maintenance_work_mem = '512MB';
SET max_parallel_maintenance_workers = 2;
SELECT definition FROM load_deferred WHERE tablename = :'table' AND kind = 'index' \gexec
SELECT format('ALTER TABLE %I ADD CONSTRAINT %I %s', tablename, name, definition) FROM load_deferred
WHERE tablename = :'table' AND kind = 'constraint' ORDER BY definition LIKE 'FOREIGN KEY%', name \gexec
DELETE FROM load_deferred WHERE tablename = :'table';
