"""SQLite storage: tables, migrations and queries."""
