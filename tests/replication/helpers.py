"""What the replication tests share."""

# The replica the tests read (core.databases names the first of REPLICA_URLS so).
REPLICA = "replica_0"
