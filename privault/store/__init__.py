"""Storage: the one SQLite file, its connection factory, migrations and repositories."""
