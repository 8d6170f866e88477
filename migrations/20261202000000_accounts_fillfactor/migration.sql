-- Room on every page of `accounts` for a sign-in's write of last_login_at, last_login_ip and
-- updated_at (no index covers them) to stay a heap-only (HOT) update. On a full page the new
-- version goes to another page and the primary key, email and slug indexes each get an entry on a
-- random page of a large index: what made a login's database work grow with the number of
-- accounts. New pages keep a tenth free; existing ones get the room as they are rewritten.
ALTER TABLE "accounts" SET (fillfactor = 90);
