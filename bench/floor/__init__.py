"""The benchmark's floor: a minimal Django project of its own (no middleware, no app but the one
row the query needs), served by the same gunicorn the same way as the project.

- `GET /read/<tender id>`: one tender row by primary key, answered as a small JSON (the floor
  every read is measured against);
- `PATCH /write/<tender id>/<claim id>`: the transaction a claim's answer makes (the broker's key
  looked up, the tender's row locked, its claims read, the one write, the commit) in plain SQL
  through psycopg on the same database (the floor every write is measured against).
"""
