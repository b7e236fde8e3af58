-- One row that the readiness probe (Store::check_ready) overwrites: proving that the store takes
-- a durable write costs one tiny upsert of row 1 and never grows the database.
CREATE TABLE readiness_probe (
    id INTEGER PRIMARY KEY,
    checked_at BIGINT NOT NULL
);
